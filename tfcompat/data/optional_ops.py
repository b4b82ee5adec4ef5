"""`tf.experimental.Optional`: a value that may be missing, as `get_next_as_optional`
returns at the end of a dataset.

Eager values only (TF also builds them in graphs: tfcompat's graph iterators have no
`get_next_as_optional`).
"""
import torch

from tfcompat._api import tf_export
from tfcompat.data import structure
from tfcompat.framework import errors
from tfcompat.framework.tensor import EagerTensor


@tf_export("experimental.Optional", "data.experimental.Optional")
class Optional(object):
    """An element of `element_spec`, or nothing (`has_value()` says which)."""

    def __init__(self, value, element_spec):
        self._value = value
        self._element_spec = element_spec

    @staticmethod
    def from_value(value):
        """An Optional holding `value` (converted to tensors as dataset elements are)."""
        value = structure.normalize_components(value)
        return Optional(value, structure.element_spec(value))

    @staticmethod
    def empty(element_spec):
        """An Optional of `element_spec` holding nothing."""
        return Optional(None, element_spec)

    @property
    def element_spec(self):
        return self._element_spec

    def has_value(self, name=None):
        return EagerTensor(torch.tensor(self._value is not None))

    def get_value(self, name=None):
        if self._value is None:
            raise errors.InvalidArgumentError("The given optional does not have a value.")
        return self._value
