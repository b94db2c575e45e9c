"""kbench for notebooks: runs, sweeps, the run history, assignments and
submissions of a kbench-server.

    import kbench
    client = kbench.Client("gpu-host:50051")        # token as the CLI finds it
    run = client.run_attention(seq_len=1024, dtype="fp16", variants=["naive", "fused"])
    run["results"][1]["speedup"], run["results"][1]["verdict"]
    kbench.frame(client.sweep("attention", {"seq_len": [512, 1024, 2048]}))
    client.run_vector_add(n=1 << 24, variants=["naive"], kernels=["my_add.cu"])  # a GPU server
    client.submit("lab1", "my_add.cu")                # the report: counts, score_ms, ...

Results are plain dicts (numbers as numbers); `frame` makes a pandas
DataFrame of result rows when pandas is installed. Errors are KbenchError
with the gRPC code and the server's message (which names the field and the
limit). The generated messages and stubs (kbench.v1) come from the build:
`cmake --build build --target kbench_python` writes this package with them
into build/python.
"""

from kbench.client import Client, KbenchError, frame, kernel_source

__all__ = ["Client", "KbenchError", "frame", "kernel_source"]
