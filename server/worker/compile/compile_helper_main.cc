// kbench-compile: compiles one learner's kernel and exits; started by the
// worker's compile sandbox (compile_sandbox.h), never by hand.
//
//   kbench-compile --cpu-seconds S --memory-bytes B --file-bytes B --parent-pid P
//
// Before it reads anything a learner wrote it dies with its parent
// (PR_SET_PDEATHSIG; and exits if the parent is already gone), refuses to
// be dumped or traced by other users (PR_SET_DUMPABLE 0), can gain no
// privileges, and takes its rlimits: CPU seconds (SIGXCPU past them),
// address space, file size, no core file. Then it reads the CompileJob
// from the file `job` in its cwd (the sandbox's private directory), runs
// NVRTC (CUDA C++ to PTX for compute_XY) and nvJitLink (PTX to a cubin for
// sm_XY, -verbose for the facts), and writes one CompileOutput (the PTX,
// the facts' log and the cubin) to stdout.
// NVRTC sees only its own headers and those of the CUDA toolkit this was
// built with; the worker's admission has already refused any other
// #include. Exit statuses: compile_sandbox.h.
#include <nvJitLink.h>
#include <nvrtc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <new>
#include <string>
#include <vector>

#include "kbench/worker/v1/worker.pb.h"
#include "server/worker/compile/compile_sandbox.h"

namespace kbench::server::worker::compile {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::cerr << "kbench-compile: " << what << std::endl;
  std::_Exit(kHelperExitSetupFailed);
}

void SetLimit(int resource, rlim_t value, const char* name) {
  const rlimit limit{value, value};
  if (setrlimit(resource, &limit) != 0)
    Fail(std::string("setrlimit ") + name + ": " + std::strerror(errno));
}

void Confine(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_DUMPABLE, 0);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  long long cpu = -1, memory = -1, file = -1, parent = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long long value = std::atoll(argv[i + 1]);
    if (flag == "--cpu-seconds")
      cpu = value;
    else if (flag == "--memory-bytes")
      memory = value;
    else if (flag == "--file-bytes")
      file = value;
    else if (flag == "--parent-pid")
      parent = value;
    else
      Fail("unknown flag " + flag);
  }
  if (cpu <= 0 || memory <= 0 || file <= 0 || parent <= 0)
    Fail("needs --cpu-seconds, --memory-bytes, --file-bytes and --parent-pid, each above 0");
  // The parent died before PR_SET_PDEATHSIG took effect.
  if (getppid() != pid_t(parent)) std::_Exit(kHelperExitSetupFailed);
  SetLimit(RLIMIT_CORE, 0, "RLIMIT_CORE");
  SetLimit(RLIMIT_CPU, rlim_t(cpu), "RLIMIT_CPU");
  SetLimit(RLIMIT_AS, rlim_t(memory), "RLIMIT_AS");
  SetLimit(RLIMIT_FSIZE, rlim_t(file), "RLIMIT_FSIZE");
  std::set_new_handler([] { std::_Exit(kHelperExitOutOfMemory); });
}

std::string NvrtcLog(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  nvrtcGetProgramLog(program, log.data());
  log.resize(size - 1);
  return log;
}

// CUDA C++ to PTX; false with the log in `out` when NVRTC refuses it.
bool CompileCuda(const kbench::worker::v1::CompileJob& job, std::string& ptx,
                 kbench::worker::v1::CompileOutput& out) {
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, job.source().c_str(), job.name().c_str(), 0, nullptr, nullptr) !=
      NVRTC_SUCCESS)
    Fail("nvrtcCreateProgram failed");
  std::vector<std::string> options(job.nvrtc_options().begin(), job.nvrtc_options().end());
  options.push_back("-I" KBENCH_CUDA_INCLUDE_DIR);
  std::vector<const char*> pointers;
  for (const std::string& o : options) pointers.push_back(o.c_str());
  const nvrtcResult result = nvrtcCompileProgram(program, int(pointers.size()), pointers.data());
  out.set_log(NvrtcLog(program));
  if (result == NVRTC_ERROR_OUT_OF_MEMORY) std::_Exit(kHelperExitOutOfMemory);
  if (result != NVRTC_SUCCESS) {
    if (out.log().empty()) out.set_log(nvrtcGetErrorString(result));
    nvrtcDestroyProgram(&program);
    return false;
  }
  size_t size = 0;
  nvrtcGetPTXSize(program, &size);
  ptx.assign(size, '\0');
  nvrtcGetPTX(program, ptx.data());
  if (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  nvrtcDestroyProgram(&program);
  return true;
}

std::string LinkLog(nvJitLinkHandle handle, bool info) {
  size_t size = 0;
  if ((info ? nvJitLinkGetInfoLogSize(handle, &size) : nvJitLinkGetErrorLogSize(handle, &size)) !=
          NVJITLINK_SUCCESS ||
      size <= 1)
    return "";
  std::string log(size, '\0');
  if (info)
    nvJitLinkGetInfoLog(handle, log.data());
  else
    nvJitLinkGetErrorLog(handle, log.data());
  log.resize(size - 1);
  return log;
}

// PTX to a cubin for the architecture; the facts are in the info log.
void Link(const kbench::worker::v1::CompileJob& job, const std::string& ptx,
          kbench::worker::v1::CompileOutput& out) {
  std::vector<const char*> options;
  for (const std::string& o : job.link_options()) options.push_back(o.c_str());
  nvJitLinkHandle handle;
  if (nvJitLinkCreate(&handle, uint32_t(options.size()), options.data()) != NVJITLINK_SUCCESS)
    Fail("nvJitLinkCreate refused the options");
  const std::string name = job.name() + ".ptx";
  nvJitLinkResult result =
      nvJitLinkAddData(handle, NVJITLINK_INPUT_PTX, ptx.data(), ptx.size(), name.c_str());
  if (result == NVJITLINK_SUCCESS) result = nvJitLinkComplete(handle);
  out.set_link_info(LinkLog(handle, true));
  const std::string errors = LinkLog(handle, false);
  if (!errors.empty()) out.set_log(out.log() + (out.log().empty() ? "" : "\n") + errors);
  if (result != NVJITLINK_SUCCESS) {
    out.set_ok(false);
    if (errors.empty())
      out.set_log(out.log() + "nvJitLink failed with error " + std::to_string(int(result)));
  } else {
    size_t cubin = 0;
    nvJitLinkGetLinkedCubinSize(handle, &cubin);
    out.set_cubin_bytes(cubin);
    std::string image(cubin, '\0');
    if (cubin > 0 && nvJitLinkGetLinkedCubin(handle, image.data()) != NVJITLINK_SUCCESS)
      Fail("nvJitLinkGetLinkedCubin failed");
    out.set_cubin(std::move(image));
    out.set_ok(true);
  }
  nvJitLinkDestroy(&handle);
}

int Main(int argc, char** argv) {
  Confine(argc, argv);
  std::ifstream in("job", std::ios::binary);
  kbench::worker::v1::CompileJob job;
  if (!in || !job.ParseFromIstream(&in)) Fail("cannot read the job file");
  kbench::worker::v1::CompileOutput out;
  std::string ptx;
  bool compiled = true;
  if (job.language() == v1::KERNEL_LANGUAGE_PTX) {
    ptx = job.source();
  } else {
    compiled = CompileCuda(job, ptx, out);
  }
  if (compiled) {
    out.set_ptx(ptx);
    Link(job, ptx, out);  // sets ok
  }
  if (!out.SerializeToOstream(&std::cout) || !std::cout.flush()) Fail("cannot write stdout");
  return 0;
}

}  // namespace
}  // namespace kbench::server::worker::compile

int main(int argc, char** argv) { return kbench::server::worker::compile::Main(argc, argv); }
