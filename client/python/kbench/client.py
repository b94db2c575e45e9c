"""The kbench Python client: the CLI's calls (runs, sweeps, history,
assignments and submissions) as functions returning plain dicts, with the
CLI's token and TLS handling."""

import ipaddress
import itertools
import os
import re
import time

import grpc

from kbench.v1 import (assignment_pb2, assignment_pb2_grpc, history_pb2, history_pb2_grpc,
                       kbench_pb2, kbench_pb2_grpc)

def _enum_names(enum, prefix):
    """{"fp16": DTYPE_FP16, ...} of a proto enum, its 0 (unspecified) left out."""
    return {v.name.removeprefix(prefix).lower(): v.number
            for v in enum.DESCRIPTOR.values if v.number != 0}


# Names as the dashboard's API writes them: "fp16", "faster", "too_few_samples".
_DTYPES = _enum_names(kbench_pb2.DType, "DTYPE_")
_VERDICTS = {number: name for name, number in _enum_names(kbench_pb2.Verdict, "VERDICT_").items()}
# Each op's problem fields, from the API: RunRequest's oneof problem.
_PROBLEM_FIELDS = {
    op.name: [field.name for field in op.message_type.fields]
    for op in kbench_pb2.RunRequest.DESCRIPTOR.oneofs_by_name["problem"].fields}


class KbenchError(Exception):
    """A call the server refused or failed: `code` is the gRPC status code
    (e.g. grpc.StatusCode.INVALID_ARGUMENT), `message` the server's words,
    `refusal` the kbench.v1.Refusal of a RESOURCE_EXHAUSTED (a learner's own
    quota, a full queue, ...) or None."""

    def __init__(self, code, message, refusal=None):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.refusal = refusal


def _credentials_token():
    """$KBENCH_TOKEN, else the first line of the credentials file that
    `kbench login` writes ($XDG_CONFIG_HOME/kbench/credentials, else
    ~/.config/kbench/credentials), else None."""
    token = os.environ.get("KBENCH_TOKEN")
    if token:
        return token
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    try:
        with open(os.path.join(base, "kbench", "credentials"), encoding="utf-8") as f:
            return f.readline().strip() or None
    except FileNotFoundError:
        return None


def _is_loopback(server):
    host = server.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _error(rpc_error):
    refusal = None
    if rpc_error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
        for key, value in rpc_error.trailing_metadata() or ():
            if key == "grpc-status-details-bin":
                refusal = kbench_pb2.Refusal()
                refusal.ParseFromString(value)
    return KbenchError(rpc_error.code(), rpc_error.details(), refusal)


def _problem(request):
    op = request.WhichOneof("problem")
    problem = getattr(request, op)
    return op, {field: getattr(problem, field) for field in _PROBLEM_FIELDS[op]}


def _dtype_name(dtype):
    for name, value in _DTYPES.items():
        if value == dtype:
            return name
    return "fp32"  # DTYPE_UNSPECIFIED: the request's default


class Client:
    """One server. `server` is HOST:PORT; `token` defaults to the CLI's
    (KBENCH_TOKEN, else the credentials file); `tls` with `ca_file` (PEM;
    None: the system's roots) as the CLI's --tls --ca. A token is never sent
    in clear text to a host that is not this machine unless `insecure_token`.
    `timeout_s` bounds each call, queueing included."""

    def __init__(self, server="localhost:50051", token=None, tls=False, ca_file=None,
                 insecure_token=False, timeout_s=600):
        self.server = server
        self.timeout_s = timeout_s
        token = token if token is not None else _credentials_token()
        if token and not tls and not insecure_token and not _is_loopback(server):
            raise ValueError(f"refusing to send the token in clear text to {server}: "
                             "use tls=True (the server runs with --tls-cert), or "
                             "insecure_token=True if the network is yours")
        if tls:
            root = open(ca_file, "rb").read() if ca_file else None
            channel = grpc.secure_channel(server, grpc.ssl_channel_credentials(root))
        else:
            channel = grpc.insecure_channel(server)
        self._metadata = [("authorization", f"Bearer {token}")] if token else []
        self._bench = kbench_pb2_grpc.KernelBenchStub(channel)
        self._history = history_pb2_grpc.RunHistoryStub(channel)
        self._assignments = assignment_pb2_grpc.AssignmentsStub(channel)

    # -- the server -------------------------------------------------------

    def info(self):
        """The server: version, backend, devices, ops and their variants,
        limits, load (ServerInfo as a dict)."""
        from google.protobuf import json_format
        try:
            info = self._bench.GetServerInfo(kbench_pb2.GetServerInfoRequest(),
                                             metadata=self._metadata, timeout=self.timeout_s)
        except grpc.RpcError as e:
            raise _error(e) from None
        return json_format.MessageToDict(info, preserving_proto_field_name=True)

    # -- runs -------------------------------------------------------------

    def run_vector_add(self, n=1 << 20, **options):
        """c = a + b over n elements; see `run` for the options."""
        request = kbench_pb2.RunRequest()
        request.vector_add.n = n
        return self.run(request, **options)

    def run_attention(self, batch=1, heads=8, seq_len=1024, head_dim=64, causal=False,
                      **options):
        """softmax(Q K^T / sqrt(d)) V over [batch, heads, seq_len, head_dim];
        see `run` for the options."""
        request = kbench_pb2.RunRequest()
        problem = request.attention
        problem.batch, problem.heads, problem.seq_len = batch, heads, seq_len
        problem.head_dim, problem.causal = head_dim, causal
        return self.run(request, **options)

    def run(self, request, variants=None, dtype=None, budget_ms=None, min_samples=None,
            max_samples=None, mode=None, seed=None, label=None, kernels=()):
        """Runs `request` (a kbench.v1.RunRequest with its problem set) with
        the options of the CLI's flags: variants (names; the first is the
        baseline), dtype ("fp32", "fp16", "bf16", "fp8"), budget_ms, min_samples,
        max_samples, mode ("cold", "hot"), seed, label, and kernels: paths of
        your own kernel files (as `kbench --kernel`: the launch from the
        source's `// kbench:` line; see `kernel_source`), each run as a
        variant after the built-ins (a GPU server only). Returns {"run_id",
        "op", "dtype", "problem": {...}, "backend", "device", "all_verified",
        "results": [one row per variant: variant, median_ms, p10_ms, p90_ms,
        samples, throughput, unit, fraction_of_ceiling, verified, speedup,
        speedup_ci_low, speedup_ci_high, speedup_ci_confidence, verdict]}.
        verdict is "baseline", "faster", "slower", "no_difference" or
        "too_few_samples". A variant that fails verification is in the
        result (verified False);
        a refused or failed run raises KbenchError."""
        if variants:
            request.variants[:] = [v.encode() for v in variants]
        if dtype is not None:
            if dtype not in _DTYPES:
                raise ValueError(f"dtype must be one of {', '.join(_DTYPES)}, not {dtype!r}")
            request.dtype = _DTYPES[dtype]
        timing = request.timing
        if budget_ms is not None:
            timing.time_budget_ms = budget_ms
        if min_samples is not None:
            timing.min_samples = min_samples
        if max_samples is not None:
            timing.max_samples = max_samples
        if mode is not None:
            modes = {"cold": kbench_pb2.TIMING_MODE_COLD, "hot": kbench_pb2.TIMING_MODE_HOT}
            if mode not in modes:
                raise ValueError(f"mode must be 'cold' or 'hot', not {mode!r}")
            timing.mode = modes[mode]
        if seed is not None:
            request.seed = seed
        if label is not None:
            request.label = label.encode()
        for path in kernels:
            request.kernels.append(kernel_source(path))
        started, results, summary = None, [], None
        try:
            for event in self._bench.Run(request, metadata=self._metadata,
                                         timeout=self.timeout_s):
                kind = event.WhichOneof("event")
                if kind == "started":
                    started = event.started
                elif kind == "variant_result":
                    results.append(event.variant_result)
                elif kind == "summary":
                    summary = event.summary
        except grpc.RpcError as e:
            raise _error(e) from None
        if summary is None:
            raise KbenchError(grpc.StatusCode.INTERNAL, "the run ended without a summary")
        op, problem = _problem(request)
        # Each variant against the baseline (a learner's kernel also has one
        # against each other built-in, after these).
        baseline = results[0].variant if results else ""
        speedups = {s.variant: s for s in summary.speedups if s.baseline == baseline}
        rows = []
        for result in results:
            s = speedups.get(result.variant)
            rows.append({
                "variant": result.variant,
                "median_ms": result.stats.median_ms,
                "p10_ms": result.stats.p10_ms,
                "p90_ms": result.stats.p90_ms,
                "samples": result.stats.samples,
                "throughput": result.throughput.value,
                "unit": result.throughput.unit,
                "fraction_of_ceiling": result.throughput.fraction_of_ceiling or None,
                "verified": result.verification.passed,
                "speedup": s.speedup if s else None,
                "speedup_ci_low": s.ci_low if s and s.ci_confidence > 0 else None,
                "speedup_ci_high": s.ci_high if s and s.ci_confidence > 0 else None,
                "speedup_ci_confidence": s.ci_confidence if s else None,
                "verdict": _VERDICTS.get(s.verdict) if s else "baseline",
            })
        return {"run_id": summary.run_id, "op": op, "dtype": _dtype_name(request.dtype),
                "problem": problem, "backend": started.backend if started else "",
                "device": started.device if started else "",
                "all_verified": summary.all_verified, "results": rows}

    def sweep(self, op, axes, **options):
        """One run per point of the grid `axes` ({field: [values]}, e.g.
        {"seq_len": [512, 1024], "causal": [False, True]}; "dtype" may be an
        axis too) over `op` ("vector_add" or "attention"), each with the
        options of `run`; fields on no axis keep the defaults of
        run_vector_add and run_attention. Returns the result rows of every point, each with
        its run_id, op, dtype and problem fields. A point the server refuses
        raises KbenchError (points before it are returned on the error as
        `.rows`)."""
        if op not in _PROBLEM_FIELDS:
            raise ValueError(f"op must be one of {', '.join(_PROBLEM_FIELDS)}, not {op!r}")
        names = list(axes)
        for name in names:
            if name != "dtype" and name not in _PROBLEM_FIELDS[op]:
                raise ValueError(f"{name!r} is not a field of {op} "
                                 f"({', '.join(_PROBLEM_FIELDS[op] + ['dtype'])})")
        rows = []
        for values in itertools.product(*(axes[n] for n in names)):
            point = dict(zip(names, values))
            run_options = dict(options)
            if "dtype" in point:
                run_options["dtype"] = point.pop("dtype")
            # Fields not on an axis keep run_vector_add's and run_attention's defaults.
            runner = {"vector_add": self.run_vector_add, "attention": self.run_attention}[op]
            try:
                run = runner(**point, **run_options)
            except KbenchError as e:
                e.rows = rows
                raise
            rows.extend(_flat(run))
        return rows

    # -- history ----------------------------------------------------------

    def runs(self, label=None, user=None, op=None, limit=100):
        """The newest `limit` runs the server keeps that this caller may read
        (a learner: their own), filtered by label, user and op: one dict per
        run (run_id, user, label, op, status, accepted_unix_ms, error)."""
        request = history_pb2.ListRunsRequest(label=label or "", user=user or "", op=op or "",
                                              page_size=min(limit, 500))
        out = []
        try:
            while len(out) < limit:
                page = self._history.ListRuns(request, metadata=self._metadata,
                                              timeout=self.timeout_s)
                for run in page.runs:
                    out.append({"run_id": run.run_id, "user": run.user, "label": run.label,
                                "op": run.op,
                                "status": history_pb2.RunStatus.Name(run.status)
                                .removeprefix("RUN_STATUS_").lower(),
                                "accepted_unix_ms": run.accepted_unix_ms, "error": run.error})
                if not page.next_page_token:
                    break
                request.page_token = page.next_page_token
        except grpc.RpcError as e:
            raise _error(e) from None
        return out[:limit]

    # -- assignments ------------------------------------------------------

    def _call(self, method, request):
        try:
            return method(request, metadata=self._metadata, timeout=self.timeout_s)
        except grpc.RpcError as e:
            raise _error(e) from None

    def assignments(self):
        """The assignments this caller sees (a learner: their cohort's), each
        a dict (name, title, op, problems, baselines, due_unix_ms, ...)."""
        from google.protobuf import json_format
        listed = self._call(self._assignments.ListAssignments,
                            assignment_pb2.ListAssignmentsRequest())
        return [json_format.MessageToDict(a, preserving_proto_field_name=True)
                for a in listed.assignments]

    def submit(self, assignment, path, entry=None, grid=None, block=None, smem=None,
               options=()):
        """Submits the kernel in the file at `path` to `assignment` and makes
        its runs (one per problem, through the fair queue) as `kbench submit`
        does. The launch comes from the arguments, else the source's
        `// kbench:` line; its name is the file's name, its language PTX for
        a .ptx file. Returns the report: {"submission_id", "counts",
        "why_not", "score_ms", "score_ci_low_ms", "score_ci_high_ms",
        "speedups": {baseline: x}, "devices", "problems": [{"problem",
        "dtype", "median_ms", "verified", "error", "run_id"}]}. A refused
        submission or run raises KbenchError."""
        kernel = kernel_source(path, entry=entry, grid=grid, block=block, smem=smem,
                               options=options)
        submission = self._call(self._assignments.Submit,
                                assignment_pb2.SubmitRequest(assignment=assignment,
                                                             kernel=kernel))
        for run in submission.runs:
            try:
                for _ in self._bench.Run(run, metadata=self._metadata, timeout=self.timeout_s):
                    pass
            except grpc.RpcError:
                pass  # the report says why the problem does not count
        request = assignment_pb2.SubmissionId(submission_id=submission.submission_id)
        for _ in range(50):  # the server records a run's end just after its stream ends
            report = self._call(self._assignments.GetSubmission, request)
            if not any(p.status in (history_pb2.RUN_STATUS_QUEUED, history_pb2.RUN_STATUS_RUNNING)
                       for p in report.problems):
                break
            time.sleep(0.1)
        return _report(report)

    def leaderboard(self, assignment):
        """Each learner's best counting submission, best first: one dict per
        learner (rank, tied, user: None where hidden, you, score_ms,
        score_ci_low_ms, score_ci_high_ms, speedups, attempts)."""
        board = self._call(self._assignments.GetLeaderboard,
                           assignment_pb2.AssignmentName(name=assignment))
        return [{"rank": e.rank, "tied": e.tied, "user": e.user or None, "you": e.you,
                 **{k: v for k, v in _report(e.best).items()
                    if k in ("score_ms", "score_ci_low_ms", "score_ci_high_ms", "speedups")},
                 "attempts": e.attempts} for e in board.entries]


def kernel_source(path, entry=None, grid=None, block=None, smem=None, options=()):
    """The kbench.v1.KernelSource of the kernel file at `path`, as the CLI
    makes it: its name the file's name, its language PTX for a .ptx file
    (CUDA C++ otherwise), its launch and entry from the arguments, else the
    source's `// kbench: grid=... block=... smem=... entry=...` line, else
    the file's stem as the entry."""
    with open(path, "rb") as f:
        source = f.read()
    kernel = kbench_pb2.KernelSource(name=os.path.basename(path), source=source)
    kernel.language = (kbench_pb2.KERNEL_LANGUAGE_PTX if path.endswith(".ptx")
                       else kbench_pb2.KERNEL_LANGUAGE_CUDA_CPP)
    line = re.search(rb"//\s*kbench:(.*)", source)
    stated = dict(word.split("=", 1) for word in line.group(1).decode().split()
                  if "=" in word) if line else {}
    kernel.entry = entry or stated.get("entry", os.path.splitext(os.path.basename(path))[0])
    kernel.launch.grid = grid or stated.get("grid", "")
    kernel.launch.block = block or stated.get("block", "")
    kernel.launch.shared_memory_bytes = smem or stated.get("smem", "")
    kernel.options[:] = list(options)
    return kernel


def _report(report):
    """A SubmissionReport as a dict (see Client.submit)."""
    problems = []
    for p in report.problems:
        stats = p.result.stats
        problems.append({"problem": p.problem, "dtype": p.dtype,
                         "median_ms": stats.median_ms or None,
                         "verified": not p.error and stats.median_ms > 0,
                         "error": p.error, "run_id": p.run_id})
    return {"submission_id": report.submission.submission_id, "counts": report.counts,
            "why_not": report.why_not,
            "score_ms": report.score_ms if report.counts else None,
            "score_ci_low_ms": report.score_ci_low_ms if report.counts else None,
            "score_ci_high_ms": report.score_ci_high_ms if report.counts else None,
            "speedups": {s.baseline: s.speedup for s in report.speedups},
            "devices": list(report.devices), "problems": problems}


def _flat(run):
    """The rows of a run result, each with the run's id, op, dtype and
    problem fields."""
    about = {"run_id": run["run_id"], "op": run["op"], "dtype": run["dtype"], **run["problem"]}
    return [{**about, **row} for row in run["results"]]


def frame(rows_or_run):
    """A pandas DataFrame of result rows (a sweep's, or a run's results with
    its problem): needs pandas (ImportError naming it otherwise)."""
    try:
        import pandas
    except ImportError:
        raise ImportError("kbench.frame needs pandas (apt install python3-pandas, "
                          "or pip install pandas)") from None
    rows = _flat(rows_or_run) if isinstance(rows_or_run, dict) else rows_or_run
    return pandas.DataFrame(rows)
