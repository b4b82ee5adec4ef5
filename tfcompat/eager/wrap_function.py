"""TF's `tf.compat.v1.wrap_function` (python/eager/wrap_function.py): a TF1-style function
traced once into a graph and called eagerly; `prune(feeds, fetches)` makes a function of
any of its tensors, the way TF2 code runs a frozen GraphDef:

    wrapped = tf.compat.v1.wrap_function(lambda: tf.compat.v1.import_graph_def(gd, name=""), [])
    run = wrapped.prune("x:0", "Identity:0")
    run(tf.constant(images))

The graph is a plain tf.Graph (TF's FuncGraph); calls run the pruned fx module as
`Session.run` does, with the arguments as feeds, and return eager tensors.
"""
from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.graph import Graph, Operation, run_module
from tfcompat.framework.ops import to_torch, wrap
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.util import nest


class WrappedFunction(object):
    """A function over the tensors of `graph`: called with values for `inputs`, it
    returns `structured_outputs` (operations give None)."""

    def __init__(self, graph, inputs, structured_outputs):
        self.graph = graph
        self.inputs = list(inputs)
        self.structured_outputs = structured_outputs
        self.outputs = [t for t in nest.flatten(structured_outputs)
                        if not isinstance(t, Operation)]
        self._module = None     # (graph version, fx module, its graph inputs)

    def prune(self, feeds, fetches, name=None, input_signature=None):
        """A WrappedFunction taking values of `feeds` (tensors or their names, a nest) and
        computing `fetches` (tensors, operations or names, a nest) from them only."""
        element = self.graph.as_graph_element
        flat_feeds = [element(f, allow_operation=False) for f in nest.flatten(feeds)]
        return WrappedFunction(self.graph, flat_feeds, nest.map_structure(element, fetches))

    def __call__(self, *args, **kwargs):
        """Values for `inputs`, positionally or by their ops' names (`f(x=images)`, as
        TF names a pruned function's arguments)."""
        keywords = [t.op.name for t in self.inputs]
        unknown = sorted(set(kwargs) - set(keywords[len(args):]))
        if len(args) > len(self.inputs) or unknown:
            raise TypeError("This function takes the arguments %s, got %d positional and "
                            "the keywords %s" % (keywords, len(args), sorted(kwargs)))
        args = list(args) + [kwargs[k] for k in keywords[len(args):] if k in kwargs]
        if len(args) != len(self.inputs):
            raise TypeError("This function takes the arguments %s, got %d"
                            % (keywords, len(args)))
        values = [to_torch(value, dtypes.as_dtype(t.dtype)) for value, t in
                  zip(args, self.inputs)]
        for value, tensor in zip(values, self.inputs):
            if not TensorShape(list(value.shape)).is_compatible_with(tensor.shape):
                raise ValueError("Cannot feed a value of shape %s for tensor %s of shape %s"
                                 % (list(value.shape), tensor.name, tensor.shape))
        fetches = nest.flatten(self.structured_outputs)
        if self._module is None or self._module[0] != self.graph.version:
            self._module = (self.graph.version,) + self.graph.build_module(self.inputs,
                                                                           fetches)
        _, module, graph_inputs = self._module
        results = run_module(module, values, graph_inputs)
        return nest.pack_sequence_as(self.structured_outputs, [
            None if isinstance(f, Operation) else wrap(r) for f, r in zip(fetches, results)])


@tf_export(v1=["wrap_function"])
def wrap_function(fn, signature, name=None):
    """TF's `tf.compat.v1.wrap_function`: `fn` traced once in a new graph, on placeholders
    of `signature` (a nest of tf.TensorSpec), as a WrappedFunction."""
    graph = Graph()
    with graph.as_default():
        placeholders = [graph.placeholder(spec.dtype, spec.shape, name=spec.name)
                        for spec in nest.flatten(signature)]
        outputs = fn(*nest.pack_sequence_as(signature, placeholders))
    return WrappedFunction(graph, placeholders, outputs)
