"""tf.nest against TF's documented behaviour."""
import collections

import pytest

import tfcompat as tf

Point = collections.namedtuple("Point", "x y")


def test_flatten_orders_mapping_keys_and_keeps_leaves():
    structure = {"b": (1, [2, 3]), "a": Point(4, None), "c": "text"}
    assert tf.nest.flatten(structure) == [4, None, 1, 2, 3, "text"]
    assert tf.nest.flatten(5) == [5]
    assert tf.nest.flatten(None) == [None]


def test_pack_sequence_as_rebuilds_types_and_key_order():
    structure = collections.OrderedDict([("z", 0), ("a", Point(0, [0]))])
    packed = tf.nest.pack_sequence_as(structure, [1, 2, 3])
    assert isinstance(packed, collections.OrderedDict) and list(packed) == ["z", "a"]
    assert packed["a"] == Point(1, [2]) and packed["z"] == 3
    assert tf.nest.pack_sequence_as(7, [8]) == 8
    with pytest.raises(ValueError, match="Structure had 3 atoms"):
        tf.nest.pack_sequence_as(structure, [1, 2])


def test_map_structure_and_structure_checks():
    assert tf.nest.map_structure(lambda a, b: a + b, (1, {"k": 2}), (10, {"k": 20})) == \
        (11, {"k": 22})
    with pytest.raises(ValueError):
        tf.nest.assert_same_structure((1, 2), (1, (2, 3)))
    with pytest.raises(TypeError):
        tf.nest.assert_same_structure((1, 2), [1, 2])
    tf.nest.assert_same_structure((1, 2), [1, 2], check_types=False)
    with pytest.raises(ValueError, match="same set of keys"):
        tf.nest.assert_same_structure({"a": 1}, {"b": 1})
    assert tf.nest.is_nested([1]) and not tf.nest.is_nested("ab")
    assert tf.contrib.framework.nest.flatten((1, (2,))) == [1, 2]
