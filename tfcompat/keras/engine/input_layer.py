"""`tf.keras.Input` and `InputLayer`: the symbolic inputs of functional models.

Eager mode: Keras tensors are placeholders of a private graph (a function-building graph, so
variables that layers create while called on them are eager variables). TF1 graph mode: they
are placeholders of the default graph, as in TF1 Keras, so `Session.run` can feed them.
"""
from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes
from tfcompat.framework.graph import Graph, SymbolicTensor, get_default_graph
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import backend
from tfcompat.keras.engine.base_layer import Layer, Node

_state = context.state


class KerasGraph(Graph):
    """The private graph eager-mode Keras tensors live in (one for all threads, as Keras'
    global graph; the base Graph serializes building into it)."""

    building_function = True
    keras_graph = True


_keras_graph = []


def keras_graph():
    if not _keras_graph:
        _keras_graph.append(KerasGraph())
    return _keras_graph[0]


def _placeholder(dtype, shape, name):
    graph = get_default_graph() if _state.building_graph else keras_graph()
    if graph.building_function:
        graph = keras_graph()
    with graph.as_default():
        return graph.placeholder(dtype, shape, name)


@tf_export("keras.layers.InputLayer")
class InputLayer(Layer):
    """The layer that owns a model input placeholder."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None,
                 sparse=False, name=None, ragged=False, batch_input_shape=None, optional=False,
                 **kwargs):
        """`optional` is a key newer tf-keras releases (2.21) write in InputLayer configs
        (False unless the input may be None); optional inputs are not implemented."""
        if sparse or ragged or optional:
            raise NotImplementedError("sparse, ragged and optional Keras inputs are not "
                                      "implemented by tfcompat")
        if kwargs:
            raise ValueError("Unrecognized keyword arguments: %s" % list(kwargs))
        if input_shape is not None and batch_input_shape is not None:
            raise ValueError("Only provide the input_shape OR batch_input_shape argument to "
                             "InputLayer, not both at the same time.")
        if not name:
            name = "input_" + str(backend.get_uid("input"))
        if dtype is None:
            dtype = input_tensor.dtype.base_dtype.name if input_tensor is not None \
                else backend.floatx()
        super(InputLayer, self).__init__(name=name, dtype=dtype)
        self.built = True
        self.is_placeholder = input_tensor is None
        if input_tensor is None:
            if batch_input_shape is None:
                if input_shape is None:
                    raise ValueError("An Input layer should be passed either a `batch_shape` "
                                     "or a `shape`.")
                batch_input_shape = (batch_size,) + tuple(input_shape)
            batch_input_shape = tuple(TensorShape(batch_input_shape).as_list())
            input_tensor = _placeholder(dtypes.as_dtype(dtype), batch_input_shape, self.name)
        else:
            batch_input_shape = tuple(input_tensor.shape.as_list())
        self._batch_input_shape = batch_input_shape
        input_tensor._keras_mask = None
        node = Node(self, (), {}, input_tensor)
        self._inbound_nodes.append(node)
        input_tensor._keras_history = (self, 0, 0)
        if isinstance(input_tensor, SymbolicTensor):
            # a layer called on TF ops in this graph checks whether they need op layers
            input_tensor.graph.has_keras_inputs = True

    def get_config(self):
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
                "sparse": False, "name": self.name}


@tf_export("keras.Input", "keras.layers.Input")
def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None,
          ragged=False, batch_shape=None, **kwargs):
    """A Keras symbolic tensor: `shape` excludes the batch dimension (`batch_shape` has it)."""
    if kwargs:
        raise ValueError("Unrecognized keyword arguments: %s" % list(kwargs))
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input either a `shape` or a `tensor` argument. "
                         "Note that `shape` does not include the batch dimension.")
    if shape is not None and batch_shape is not None:
        raise ValueError("Only provide the `shape` OR `batch_shape` argument to Input, not "
                         "both at the same time.")
    if isinstance(shape, int):
        shape = (shape,)
    layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype,
                       input_tensor=tensor, name=name, batch_input_shape=batch_shape)
    return layer._inbound_nodes[0].outputs
