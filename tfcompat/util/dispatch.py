"""Type-based dispatch of TF APIs (TF's tensorflow/python/util/dispatch.py, reduced).

An API wrapped by `add_dispatch_support` hands a call whose first argument is an instance of
a type registered with `dispatch_for_types` (or a list holding one) to that type's handler,
as TF's dispatchers let `tf.math.reduce_sum(ragged, axis=1)` run RaggedTensor's reduction.
With no handler for the argument's type the API runs as it is (a dict lookup more per call).
"""
import functools
import inspect


def add_dispatch_support(api):
    """`api` (an op) with type-based dispatch on its first argument."""
    handlers = {}
    first = next(iter(inspect.signature(api).parameters))

    @functools.wraps(api)
    def dispatcher(*args, **kwargs):
        if handlers:
            handler = _handler_for(handlers, args[0] if args else kwargs.get(first))
            if handler is not None:
                return handler(*args, **kwargs)
        return api(*args, **kwargs)
    dispatcher._tfcompat_dispatch_handlers = handlers
    return dispatcher


def _handler_for(handlers, value):
    """The handler for `value`'s type, or for the first item of a list/tuple `value` that
    has one (TF dispatches `tf.concat([dense, ragged], 0)` to the ragged concat)."""
    handler = handlers.get(type(value))
    if handler is None and type(value) in (list, tuple):
        for item in value:
            handler = handlers.get(type(item))
            if handler is not None:
                break
    return handler


def dispatch_for_types(api, *types):
    """Decorator: `handler` runs `api` for calls whose first argument is one of `types`; it
    takes `api`'s arguments."""
    def register(handler):
        for cls in types:
            api._tfcompat_dispatch_handlers[cls] = handler
        return handler
    return register
