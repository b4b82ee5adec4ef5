"""TF 1.x `tf.contrib.eager` (tfe): gradient functions and the eager-context helpers.

`tfe.Variable` is exported by `tfcompat.variables`, `tfe.defun` by `tfcompat.function`,
`tfe.Network` / `tfe.Sequential` by `network`, `tfe.Saver` and
`tfe.restore_variables_on_create` by `saver`.

Execution modes: torch runs eager ops in order on the host thread (GPU kernels are queued
and read back in order), so `tfe.ASYNC` and `tfe.SYNC` give the same results; `async_wait`
waits for queued GPU work and async errors cannot occur.
"""
import contextlib
import functools
import inspect

import torch

from tfcompat._api import export_constant, tf_export
from tfcompat.eager.backprop import GradientTape, flatten
from tfcompat.framework import context
from tfcompat.platform import app
from tfcompat.framework.ops import to_torch
from tfcompat.framework.tensor import EagerTensor
from tfcompat.eager.custom_gradient import custom_gradient

tf_export("contrib.eager.GradientTape")(GradientTape)
tf_export("contrib.eager.custom_gradient")(custom_gradient)
tf_export("contrib.eager.executing_eagerly", "contrib.eager.in_eager_mode")(
    context.executing_eagerly)
tf_export("contrib.eager.enable_eager_execution")(context.enable_eager_execution)


SYNC = export_constant(0, "contrib.eager.SYNC")
ASYNC = export_constant(1, "contrib.eager.ASYNC")


def _check_execution_mode(mode):
    if mode not in (None, SYNC, ASYNC):
        raise ValueError("Execution mode should be None/SYNC/ASYNC. Got %s" % (mode,))


@tf_export("contrib.eager.set_execution_mode")
def set_execution_mode(mode):
    """Accepts tfe.SYNC, tfe.ASYNC or None; ops run in order either way (module doc)."""
    _check_execution_mode(mode)


@tf_export("contrib.eager.execution_mode")
@contextlib.contextmanager
def execution_mode(mode):
    """`with tfe.execution_mode(tfe.ASYNC):` accepted; ops run in order (module doc)."""
    _check_execution_mode(mode)
    yield


@tf_export("contrib.eager.async_wait")
def async_wait():
    """Wait until the queued ops have run (torch's queued GPU kernels)."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


@tf_export("contrib.eager.async_clear_error")
def async_clear_error():
    """Nothing to clear: ops never fail asynchronously here."""


@tf_export("contrib.eager.run")
def run(main=None, argv=None):
    """`tfe.run`: enable eager execution, then `tf.app.run(main, argv)`."""
    context.enable_eager_execution()
    app.run(main, argv)


@tf_export("contrib.eager.num_gpus")
def num_gpus():
    """The number of GPUs torch can use."""
    return torch.cuda.device_count()


def _param_positions(f, params, args):
    """Which positional arguments to differentiate: `params` given as names or indices."""
    try:
        names = inspect.getfullargspec(f).args
    except TypeError as e:
        if params is None:
            return range(len(args))
        if all(isinstance(p, int) for p in params):
            return params
        raise ValueError("Either callable provided is not a function or could not inspect "
                         "its arguments by name: %s. Original error: %s" % (f, e))
    if params is None:
        if not names:
            return range(len(args))
        return range(len(names) - 1) if names[0] == "self" else range(len(names))
    if all(isinstance(p, str) for p in params):
        return [names.index(p) for p in params]
    if all(isinstance(p, int) for p in params):
        return params
    raise ValueError("params must be all strings or all integers; got %s." % (params,))


def _no_value(f):
    return ValueError("Cannot differentiate a function that returns None; did you forget to "
                      "return a value from %s?" % getattr(f, "__name__", f))


@tf_export("contrib.eager.value_and_gradients_function")
def value_and_gradients_function(f, params=None):
    """Returns `g(*args, dy=None) -> (f(*args), [df/d arg for the params])`.

    Gradients of a non-scalar value are those of its sum (or weighted by `dy`); unconnected
    arguments get None.
    """
    @functools.wraps(f)
    def decorated(*args, **kwds):
        dy = kwds.pop("dy", None)
        if kwds:
            raise ValueError("Functions to be differentiated cannot receive keyword "
                             "arguments.")
        positions = _param_positions(f, params, args)
        with GradientTape() as tape:
            # fresh tensor objects: watching must not change the caller's tensors
            args = [EagerTensor(to_torch(a)) if i in positions else a
                    for i, a in enumerate(args)]
            sources = [args[i] for i in positions]
            tape.watch(sources)
            result = f(*args)
            if result is None:
                raise _no_value(f)
        grads = tape.gradient(flatten(result), sources,
                              output_gradients=None if dy is None else flatten(dy))
        return result, grads
    return decorated


@tf_export("contrib.eager.gradients_function")
def gradients_function(f, params=None):
    """Returns `g(*args, dy=None) -> [df/d arg for the params]` (see
    `value_and_gradients_function`)."""
    value_and_grads = value_and_gradients_function(f, params)

    @functools.wraps(f)
    def decorated(*args, **kwds):
        return value_and_grads(*args, **kwds)[1]
    return decorated


@tf_export("contrib.eager.implicit_value_and_gradients")
def implicit_value_and_gradients(f):
    """Returns `g(*args) -> (f(*args), [(grad, variable), ...])` for the trainable
    variables `f` reads, in the order they were first read."""
    @functools.wraps(f)
    def decorated(*args, **kwds):
        with GradientTape() as tape:
            value = f(*args, **kwds)
            if value is None:
                raise _no_value(f)
        variables = tape.watched_variables()
        if not variables:
            raise ValueError("No trainable variables were accessed while the function was "
                             "being computed.")
        grads = tape.gradient(flatten(value), list(variables))
        return value, list(zip(grads, variables))
    return decorated


@tf_export("contrib.eager.implicit_gradients")
def implicit_gradients(f):
    """Returns `g(*args) -> [(grad, variable), ...]` for the trainable variables `f` reads."""
    value_and_grads = implicit_value_and_gradients(f)

    @functools.wraps(f)
    def decorated(*args, **kwds):
        return value_and_grads(*args, **kwds)[1]
    return decorated
