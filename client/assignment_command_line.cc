#include "client/assignment_command_line.h"

namespace kbench::client {
namespace {

constexpr char kScoreNote[] =
    "\nA submission runs your kernel on every problem of the assignment, beside\n"
    "the built-in variants it names, through the fair queue and your quotas.\n"
    "It counts when every problem's run verified. Its score is the geometric\n"
    "mean over the problems of your kernel's median time (ms, lower is\n"
    "better); learners whose score intervals overlap are tied.\n"
    "\n"
    "Exit codes: 0 ok (submit: the submission counts); 1 submit: it does not\n"
    "count (a problem failed, was refused or did not run); 2 bad arguments or\n"
    "values the server refused; 3 server unreachable or failing, or over the\n"
    "assignment's submissions per hour; 4 not signed in or not allowed; 130\n"
    "interrupted.\n";

}  // namespace

// The flags of create and edit that set a key of the file: --title for
// title, --submissions-per-hour for submissions-per-hour, ...
void AddKeyFlags(CLI::App& command, AssignmentSaveCommand& save) {
  const std::pair<const char*, const char*> keys[] = {
      {"name", "The assignment's name"},
      {"title", "Its title"},
      {"cohort", "Its cohort (admins; an instructor's is their own)"},
      {"opens",
       "When it opens: 2026-12-01T09:00Z (UTC), a local date and time, or a span "
       "from now (12h, 3d)"},
      {"due", "When it is due (later submissions are marked late)"},
      {"submissions-per-hour", "Submissions one learner may make in an hour (1 to 60)"},
      {"show-names", "true: learners see each other's names on the leaderboard"},
      {"problems",
       "The problems as a sweep spec in YAML's flow style, e.g. '{op: vector_add, "
       "axes: {n: [2^20, 2^24]}, variant: [naive, vectorized]}'"}};
  for (const auto& [key, help] : keys) {
    command
        .add_option_function<std::string>(
            std::string("--") + key,
            [&save, key = std::string(key)](const std::string& value) {
              save.overrides.emplace_back(key, value);
            },
            std::string(help) + " (wins over the file's)")
        ->type_name("VALUE");
  }
}

AssignmentCommandLine::AssignmentCommandLine(CLI::App& app) {
  CLI::App* assignment =
      app.add_subcommand("assignment",
                         "Create, edit, list, show and close assignments (instructors and admins "
                         "write them; learners list and show their cohort's).");
  assignment->require_subcommand(1);
  create_ = assignment->add_subcommand(
      "create",
      "Create an assignment from a YAML or JSON file (docs/ASSIGNMENTS.md), from "
      "flags, or from a file with flags that replace its keys.");
  create_->add_option("file", save_.file, "The assignment file")->type_name("FILE");
  AddKeyFlags(*create_, save_);
  create_->footer(
      "\nExample file (lab1.yaml):\n"
      "  name: lab1\n"
      "  title: Vector add, faster than naive\n"
      "  due: 2026-12-20T23:59Z\n"
      "  submissions-per-hour: 6\n"
      "  problems:\n"
      "    op: vector_add\n"
      "    axes: {n: [2^20, 2^24]}\n"
      "    variant: [naive, vectorized]\n"
      "\nExamples:\n  kbench assignment create lab1.yaml\n"
      "  kbench assignment create lab1.yaml --name lab1-late --due 3d\n"
      "  kbench assignment create --name lab0 --due 7d --problems \\\n"
      "    '{op: vector_add, axes: {n: [2^20, 2^24]}, variant: [naive, vectorized]}'\n");
  edit_ = assignment->add_subcommand(
      "edit", "Replace an assignment with the file's (same name); its submissions stay.");
  edit_->add_option("file", save_.file, "The assignment file")->type_name("FILE");
  AddKeyFlags(*edit_, save_);
  list_ = assignment->add_subcommand("list", "List the assignments you can see.");
  list_->add_option("--cohort", list_command_.cohort, "Only this cohort's (admins)")
      ->type_name("COHORT");
  show_ = assignment->add_subcommand("show", "Show one assignment: its problems and times.");
  show_->add_option("name", show_command_.name, "The assignment")->required();
  close_ = assignment->add_subcommand(
      "close", "Close an assignment: no more submissions; its leaderboard stays.");
  close_->add_option("name", close_command_.name, "The assignment")->required();
  rerun_ = assignment->add_subcommand(
      "rerun",
      "Re-run the best submissions of the top learners (after a driver update, on "
      "another GPU) and compare their scores and ranks with the leaderboard's; the "
      "re-runs change no one's rank, attempts or hourly limit.");
  rerun_->add_option("name", rerun_command_.name, "The assignment")->required();
  rerun_->add_option("--top", rerun_command_.top, "How many of the first learners (1 to 20)")
      ->default_str("5")
      ->check(CLI::Range(1, 20));
  rerun_->footer("\nExamples:\n  kbench assignment rerun lab1 --top 3\n");

  submit_ =
      app.add_subcommand("submit",
                         "Submit your kernel to an assignment: it runs on every problem and is "
                         "scored.");
  submit_->add_option("assignment", submit_command_.assignment, "The assignment")->required();
  submit_->add_option("file", kernel_file_, "Your kernel: a .cu (CUDA C++) or .ptx file")
      ->required()
      ->type_name("FILE");
  AddKernelFlags(*submit_, submit_command_.kernel, /*kernel_option=*/false);
  submit_->footer(std::string("\nExamples:\n"
                              "  kbench submit lab1 my_add.cu --grid 'cdiv(n,256)' --block 256\n"
                              "  kbench submit lab1 my_add.cu --json\n") +
                  kScoreNote);

  submissions_ =
      app.add_subcommand("submissions",
                         "List submissions to an assignment with their scores: your own; an "
                         "instructor's cohort's.");
  submissions_->add_option("assignment", submissions_command_.assignment, "The assignment")
      ->required();
  submissions_->add_option("--user", submissions_command_.user, "One learner's (instructors)")
      ->type_name("USER");

  leaderboard_ =
      app.add_subcommand("leaderboard",
                         "Show an assignment's leaderboard: each learner's best counting "
                         "submission, ranked.");
  leaderboard_->add_option("assignment", leaderboard_command_.assignment, "The assignment")
      ->required();
  leaderboard_->footer(std::string("\nExamples:\n  kbench leaderboard lab1\n"
                                   "  kbench leaderboard lab1 --csv > lab1.csv\n") +
                       kScoreNote);

  roster_ =
      app.add_subcommand("roster",
                         "Show your cohort's learners and where each stands on each assignment "
                         "(instructors and admins).");
  roster_->add_option("--cohort", roster_command_.cohort, "The cohort (admins)")
      ->type_name("COHORT");
  roster_->add_flag("--gradebook", roster_command_.gradebook,
                    "CSV: one row per learner, one column per assignment (its score in ms, "
                    "or its standing)");
  roster_->footer(
      "\nStandings: not started (no submission), failing (submissions, none counts:\n"
      "the latest one's reason is shown), or the rank and score of the best.\n"
      "\nExamples:\n  kbench roster\n  kbench roster --gradebook > grades.csv\n");
}

std::optional<AssignmentCommand> AssignmentCommandLine::Parsed() const {
  if (create_->parsed()) return AssignmentSaveCommand{save_.file, false, save_.overrides};
  if (edit_->parsed()) return AssignmentSaveCommand{save_.file, true, save_.overrides};
  if (list_->parsed()) return list_command_;
  if (show_->parsed()) return show_command_;
  if (close_->parsed()) return close_command_;
  if (rerun_->parsed()) return rerun_command_;
  if (submit_->parsed()) {
    SubmitCommand command = submit_command_;
    command.kernel.files = {kernel_file_};
    return command;
  }
  if (submissions_->parsed()) return submissions_command_;
  if (leaderboard_->parsed()) return leaderboard_command_;
  if (roster_->parsed()) return roster_command_;
  return std::nullopt;
}

}  // namespace kbench::client
