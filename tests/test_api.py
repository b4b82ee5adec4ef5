"""The symbol registry and the namespaces built from it."""
import os
import sys

import pytest

import tfcompat as tf
from tfcompat import _api

PACKAGE = os.path.dirname(tf.__file__)


def test_every_package_is_imported_for_real():
    """A package the registry reached first would be a stand-in module hiding the real one."""
    for root, dirs, files in os.walk(PACKAGE):
        if "__init__.py" not in files or "__pycache__" in root:
            continue
        name = "tfcompat" + root[len(PACKAGE):].replace(os.sep, ".")
        module = sys.modules.get(name)
        assert module is not None and hasattr(module, "__path__"), (
            "%s is not imported as a package: add it to tfcompat._MODULES" % name)


def test_compat_namespaces_exist_and_differ_by_version():
    assert tf.compat.v1.placeholder is tf.placeholder
    assert tf.compat.v2.function is tf.function
    assert not hasattr(tf.compat.v2, "placeholder")
    assert tf.compat.v1.nn.dropout is not tf.compat.v2.nn.dropout


def test_missing_tf_symbol_names_itself_and_unknown_names_are_attribute_errors():
    with pytest.raises(NotImplementedError, match="tf.saved_model"):
        tf.saved_model
    assert not hasattr(tf, "saved_model")            # also an AttributeError, so hasattr works
    with pytest.raises(AttributeError) as info:
        tf.no_such_symbol_in_tensorflow
    assert not isinstance(info.value, NotImplementedError)


def test_contrib_misses_are_not_implemented():
    with pytest.raises(NotImplementedError, match="tf.contrib.bayesflow"):
        tf.contrib.bayesflow


def test_module_attributes_can_be_assigned_like_tf():
    tf.model_for_test = 3
    try:
        assert tf.model_for_test == 3
    finally:
        del tf.model_for_test


def test_flavor_switch_changes_top_level_only():
    previous = _api.flavor()
    try:
        _api.set_flavor("v2")
        assert tf.nn.dropout is tf.compat.v2.nn.dropout
        _api.set_flavor("v1")
        assert tf.nn.dropout is tf.compat.v1.nn.dropout
    finally:
        _api.set_flavor(previous)
