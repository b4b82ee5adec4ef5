"""`tfcompat run --nproc-per-node N [...] SCRIPT ARGS`: start a job's workers on this machine.

The workers are started by torch's elastic launcher (`torch.distributed.run`, what `torchrun`
runs), each running `python -m tfcompat SCRIPT ARGS`; they find their rank in the
environment the launcher sets (see `multi_worker_util`). On one machine the launcher meets
its workers at a free local port; across machines every node runs the same command with
`--nnodes M --node-rank R --master-addr A --master-port P`. A worker that fails ends the job:
the launcher stops the others and reports which rank failed and how.
"""
from torch.distributed import run as torch_run
from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

# the runner's flags, each taking a value, and torch's launcher flag for it
FLAGS = {"--nproc-per-node": "--nproc-per-node", "--nproc_per_node": "--nproc-per-node",
         "--nnodes": "--nnodes", "--node-rank": "--node-rank", "--node_rank": "--node-rank",
         "--master-addr": "--master-addr", "--master_addr": "--master-addr",
         "--master-port": "--master-port", "--master_port": "--master-port"}


def split_launch_flags(argv):
    """(launcher flags {torch flag: value}, the rest of argv) of runner arguments that start
    with launcher flags (`--nproc-per-node 2 script.py ...` or `--nproc-per-node=2 ...`)."""
    flags, rest = {}, list(argv)
    while rest and rest[0].split("=", 1)[0] in FLAGS:
        name, _, value = rest.pop(0).partition("=")
        if not value:
            if not rest:
                raise ValueError("%s needs a value" % name)
            value = rest.pop(0)
        flags[FLAGS[name]] = value
    return flags, rest


def launcher_arguments(flags, target):
    """torch.distributed.run's arguments for the flags and `target` (the runner's argv)."""
    if "--nproc-per-node" not in flags:
        raise ValueError("launching workers needs --nproc-per-node N")
    args = ["--nproc-per-node", flags["--nproc-per-node"]]
    if any(name in flags for name in ("--nnodes", "--node-rank", "--master-addr")):
        for name in ("--nnodes", "--node-rank", "--master-addr", "--master-port"):
            if name in flags:
                args += [name, flags[name]]
    else:
        args.append("--standalone")
    return args + ["--max-restarts", "0", "-m", "tfcompat"] + list(target)


def launch(flags, target):
    """Run the job's local workers; returns the exit status (1 when a worker failed)."""
    try:
        torch_run.main(launcher_arguments(flags, target))
    except ChildFailedError:   # torch's launcher has printed which rank failed and why
        return 1
    return 0
