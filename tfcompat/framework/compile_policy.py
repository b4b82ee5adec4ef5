"""When a graph module (a `Session.run` signature, a `tf.function` trace) runs through
`torch.compile`: the policy, its measurements and the `--explain-compile` report.

The policy is `TFCOMPAT_COMPILE`, read when a module first runs, unless a `tf.function` sets
its own (`jit_compile=True` compiles, `False` never): `0` never, `1` every module run more
than once (never a one-off run), `auto` measured: a module is compiled once it has spent as
long running uncompiled as a compile is expected to cost, and its compiled form is kept only
if its runs are faster than the uncompiled ones (timed side by side: the last uncompiled runs
against the first compiled ones after the compile). Unset: `auto` on CUDA, `0` on CPU (a
compile there costs seconds to minutes of the same cores the training runs on: compiling made
an MLP step faster and a CNN step slower). A compile that fails, or is not faster, falls back
to the uncompiled module for good.
"""
import collections
import os
import statistics
import sys
import time

from tfcompat.framework import context, errors
from tfcompat.framework.graph import run_module

_COMPILE_COST_SECONDS = 20.0
_TRIAL_RUNS = 10    # under `auto`: compiled runs timed (after the compile) against uncompiled

EXPLAIN_ENV = "TFCOMPAT_EXPLAIN_COMPILE"

# With TFCOMPAT_EXPLAIN_COMPILE set (`tfcompat run --explain-compile`): the CompileStats of
# every module of the process, for the report printed at exit.
compile_stats = []


def _environment_policy():
    return os.environ.get("TFCOMPAT_COMPILE", "").strip().lower()


def _graph_breaks():
    from torch._dynamo.utils import counters
    return dict(counters["graph_break"])


class CompileStats(object):
    """What `--explain-compile` reports for one signature: runs and seconds uncompiled, the
    compile (+ first run) time, compiled runs, graph breaks, why it was (not) compiled."""

    __slots__ = ("label", "runs", "seconds", "compiled_runs", "compile_seconds", "breaks",
                 "reason")

    def __init__(self, label):
        self.label = label
        self.runs, self.seconds, self.compiled_runs = 0, 0.0, 0
        self.compile_seconds, self.breaks, self.reason = None, {}, None


class Executable(object):
    """A graph module (`run_module`'s module and graph inputs), compiled when the policy
    says so: `run(values)` runs it. `jit_compile` is a tf.function's own setting: True
    compiles as TFCOMPAT_COMPILE=1 does, False never, None follows TFCOMPAT_COMPILE."""

    __slots__ = ("module", "extra", "stats", "compiled", "given_up", "policy", "chosen_by",
                 "may_compile", "measured", "uncompiled_times", "compiled_times")

    def __init__(self, module, extra, label, jit_compile=None):
        self.module, self.extra = module, extra
        self.stats = CompileStats(label)
        self.compiled, self.given_up = None, False
        if os.environ.get(EXPLAIN_ENV):
            compile_stats.append(self.stats)
        if jit_compile is None:
            self.policy = _environment_policy()
            self.chosen_by = "TFCOMPAT_COMPILE=%s" % self.policy
        else:
            self.policy = "1" if jit_compile else "0"
            self.chosen_by = "tf.function(jit_compile=%s)" % bool(jit_compile)
        self.measured = False               # `auto`: the compiled module must prove faster
        self.uncompiled_times = collections.deque(maxlen=_TRIAL_RUNS)
        self.compiled_times = []
        self.may_compile = self._policy_may_compile()

    def _policy_may_compile(self):
        """False, with the reason in the stats, where the policy never compiles."""
        if self.policy in ("0", "false", "no"):
            self.stats.reason = self.chosen_by
            return False
        if self.policy in ("1", "true", "yes"):
            return True
        if self.policy != "auto" and context.default_device().type != "cuda":
            self.stats.reason = "default policy on CPU (compiling made some models' steps " \
                "faster and others' slower; TFCOMPAT_COMPILE=auto compiles and keeps what is " \
                "faster)"
            return False
        self.measured = True
        return True

    def _want_compile(self):
        """Whether to compile now (the policy allows it); the reason goes into the stats."""
        stats = self.stats
        if self.given_up:
            return False
        if stats.runs < 1:
            stats.reason = "ran once (a one-off run is never compiled)"
            return False
        if not self.measured:
            stats.reason = self.chosen_by + " and run more than once"
            return True
        if stats.seconds <= _COMPILE_COST_SECONDS or len(self.uncompiled_times) < _TRIAL_RUNS:
            stats.reason = "measured policy: %.1f s run so far, compiling pays after %.0f s" \
                % (stats.seconds, _COMPILE_COST_SECONDS)
            return False
        stats.reason = "measured policy: %.1f s run uncompiled" % stats.seconds
        return True

    def run(self, feed_values):
        stats = self.stats
        first_compiled = self.may_compile and self.compiled is None and self._want_compile()
        if first_compiled:
            import torch._dynamo
            torch._dynamo.config.trace_autograd_ops = True
            torch._dynamo.config.specialize_float = True   # hyperparameters are constants
            # shapes computed in the graph (`zeros(tf.shape(x)[0])`) stay in the compiled graph
            torch._dynamo.config.capture_scalar_outputs = True
            self.compiled = torch.compile(self.module, dynamic=None)
            if self.module.retains_autograd_graph:
                self.compiled = _WithoutDonatedBuffers(self.compiled)
        if self.compiled is not None:
            breaks_before = _graph_breaks() if first_compiled else None
            start = time.perf_counter()
            try:
                outputs = run_module(self.compiled, feed_values, self.extra)
            except errors.OpError:
                raise
            except Exception as e:  # noqa: BLE001 - any compiler failure means: don't compile
                sys.stderr.write("tfcompat: torch.compile failed for %s (%s: %s); running it "
                                 "uncompiled\n" % (stats.label, type(e).__name__, e))
                self.compiled, self.given_up = None, True
                stats.reason = "torch.compile failed: %s: %s" % (type(e).__name__, e)
            else:
                seconds = time.perf_counter() - start
                if first_compiled:
                    stats.compile_seconds = seconds
                    stats.breaks = {why: n - breaks_before.get(why, 0)
                                    for why, n in _graph_breaks().items()
                                    if n > breaks_before.get(why, 0)}
                elif self.measured and len(self.compiled_times) < _TRIAL_RUNS:
                    self._judge(seconds)
                stats.compiled_runs += 1
                return outputs
        start = time.perf_counter()
        outputs = run_module(self.module, feed_values, self.extra)
        seconds = time.perf_counter() - start
        stats.seconds += seconds
        stats.runs += 1
        self.uncompiled_times.append(seconds)
        return outputs

    def _judge(self, seconds):
        """Under the measured policy: once the compiled module has run _TRIAL_RUNS times
        after its compile, keep it only if its median run beats the last uncompiled runs'."""
        self.compiled_times.append(seconds)
        if len(self.compiled_times) < _TRIAL_RUNS:
            return
        compiled = statistics.median(self.compiled_times)
        uncompiled = statistics.median(self.uncompiled_times)
        verdict = "compiled runs %.3g ms, uncompiled %.3g ms" % (compiled * 1e3,
                                                                 uncompiled * 1e3)
        if compiled < uncompiled:
            self.stats.reason += "; kept the compiled module: " + verdict
        else:
            self.compiled, self.given_up = None, True
            self.stats.reason += "; not faster, runs uncompiled again: " + verdict


class _WithoutDonatedBuffers(object):
    """A compiled module whose backward passes keep the autograd graph (several gradient
    nodes over one forward pass): compiled without AOTAutograd's donated buffers, which let
    a compiled backward overwrite the saved tensors it reads and so allow one backward pass
    only. Calls and attributes go to the compiled module."""

    def __init__(self, compiled):
        import torch._functorch.config     # loaded by torch.compile anyway, not by torch
        self.compiled = compiled
        self.config = torch._functorch.config

    def __call__(self, *args):
        with self.config.patch(donated_buffer=False):
            return self.compiled(*args)

    def __getattr__(self, name):
        return getattr(self.compiled, name)


def compile_report():
    """The `--explain-compile` text: one entry per graph module of the process."""
    if not compile_stats:
        return ("tfcompat: compile report: no Session.run signature or tf.function trace "
                "ran in this process\n")
    lines = ["tfcompat: compile report (TFCOMPAT_COMPILE=%s; torch inductor caches compiled "
             "graphs on disk in %s)" % (_environment_policy() or "unset", os.environ.get(
                 "TORCHINDUCTOR_CACHE_DIR", "its default directory"))]
    for number, stats in enumerate(compile_stats, 1):
        lines.append("  [%d] %s" % (number, stats.label))
        lines.append("      uncompiled: %d runs, %.3f s" % (stats.runs, stats.seconds))
        if stats.compile_seconds is None:
            lines.append("      compiled: no")
        else:
            lines.append("      compiled: compile + first run %.2f s, then %d runs"
                         % (stats.compile_seconds, stats.compiled_runs - 1))
            lines.extend("      graph break (%dx): %s" % (n, why)
                         for why, n in stats.breaks.items())
            if not stats.breaks:
                lines.append("      graph breaks: none")
        if stats.reason:
            lines.append("      why: %s" % stats.reason)
    return "\n".join(lines) + "\n"
