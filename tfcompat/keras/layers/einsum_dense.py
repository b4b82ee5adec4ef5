"""`tf.keras.layers.EinsumDense` (Keras 2.15): `activation(einsum(equation, inputs, kernel) +
bias)`, the kernel's and bias's shapes worked out from the equation as Keras does."""
import re

from tfcompat._api import tf_export
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import activations, constraints, initializers, regularizers
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.keras.layers.core import serialize_optional, weight_kwargs
from tfcompat.ops import math_ops


@tf_export("keras.layers.EinsumDense", "keras.layers.experimental.EinsumDense")
class EinsumDense(Layer):
    """A dense layer of any rank: `equation` is "[input],[kernel]->[output]" (an ellipsis
    may stand for leading or trailing dims); `output_shape` leaves out the batch dim."""

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super(EinsumDense, self).__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.equation = equation
        self.partial_output_shape = [output_shape] if isinstance(output_shape, int) \
            else list(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        kernel_shape, bias_shape, self.full_output_shape = analyze_einsum_string(
            self.equation, self.bias_axes, TensorShape(input_shape).as_list(),
            self.partial_output_shape)
        self.kernel = self.add_weight("kernel", shape=kernel_shape,
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, dtype=self.dtype,
                                      trainable=True)
        if bias_shape is None:
            self.bias = None
        else:
            self.bias = self.add_weight("bias", shape=bias_shape,
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, dtype=self.dtype,
                                        trainable=True)
        self.built = True

    def call(self, inputs):
        outputs = math_ops.einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            outputs = outputs + self.bias
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        return TensorShape(self.full_output_shape)

    def get_config(self):
        config = super(EinsumDense, self).get_config()
        config.update({"output_shape": self.partial_output_shape, "equation": self.equation,
                       "activation": activations.serialize(self.activation),
                       "bias_axes": self.bias_axes,
                       "activity_regularizer": serialize_optional(regularizers,
                                                                  self.activity_regularizer)})
        config.update(weight_kwargs(self, "kernel", "bias"))
        return config


def analyze_einsum_string(equation, bias_axes, input_shape, output_shape):
    """(kernel shape, bias shape or None, full output shape) of an EinsumDense `equation`
    applied to inputs of `input_shape` with `output_shape` (no batch dim)."""
    dotless = equation.replace("...", "0")
    for pattern, left_elided in (("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$", False),
                                 ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$", True),
                                 ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$", False)):
        match = re.match(pattern, dotless)
        if match:
            return _analyze_split_string(match.groups(), bias_axes, input_shape,
                                         output_shape, left_elided)
    raise ValueError("Invalid einsum equation '%s'. Equations must be in the form [X],[Y]->[Z], "
                     "...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...." % equation)


def _analyze_split_string(specs, bias_axes, input_shape, output_shape, left_elided):
    input_spec, weight_spec, output_spec = specs
    elided = len(input_shape) - len(input_spec)
    output_shape = [input_shape[0]] + list(output_shape)
    if elided > 0 and left_elided:
        for i in range(1, elided):
            output_shape.insert(1, input_shape[i])
    elif elided > 0:
        output_shape.extend(input_shape[len(input_shape) - elided:])
    if left_elided:
        input_dims = {d: i + elided - len(input_shape) for i, d in enumerate(input_spec)}
        output_dims = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        input_dims = {d: i for i, d in enumerate(input_spec)}
        output_dims = {d: i for i, d in enumerate(output_spec)}
    for dim in input_spec:
        if dim in output_dims:
            size = output_shape[output_dims[dim]]
            if size is not None and size != input_shape[input_dims[dim]]:
                raise ValueError("Input shape and output shape do not match at shared "
                                 "dimension '%s'. Input shape is %s, and output shape is %s."
                                 % (dim, input_shape[input_dims[dim]], size))
    for dim in output_spec:
        if dim not in input_spec and dim not in weight_spec:
            raise ValueError("Dimension '%s' was specified in the output '%s' but has no "
                             "corresponding dim in the input spec '%s' or weight spec '%s'"
                             % (dim, output_spec, input_spec, output_spec))
    weight_shape = []
    for dim in weight_spec:
        if dim in input_dims:
            weight_shape.append(input_shape[input_dims[dim]])
        elif dim in output_dims:
            weight_shape.append(output_shape[output_dims[dim]])
        else:
            raise ValueError("Weight dimension '%s' did not have a match in either the input "
                             "spec '%s' or the output spec '%s'. For this layer, the weight "
                             "must be fully specified." % (dim, input_spec, output_spec))
    if bias_axes is None:
        return weight_shape, None, output_shape
    offset = elided if left_elided else 0
    sizes = {d: output_shape[i + offset] for i, d in enumerate(output_spec)}
    for dim in bias_axes:
        if dim not in output_spec:
            raise ValueError("Bias dimension '%s' was requested, but is not part of the "
                             "output spec '%s'" % (dim, output_spec))
    first = min(output_spec.find(d) for d in bias_axes)
    bias_shape = [sizes[d] if d in bias_axes else 1 for d in output_spec[first:]]
    if not left_elided:
        bias_shape.extend([1] * elided)
    return weight_shape, bias_shape, output_shape
