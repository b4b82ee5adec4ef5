"""tf.strings additions against real TF's values, eagerly and in TF1 graphs."""
import numpy as np
import pytest

import tfcompat as tf


def test_regex_full_match_matches_whole_strings_like_tf():
    matched = tf.strings.regex_full_match(["abc123", "abc", "x1"], r"[a-z]+\d+")
    assert matched.dtype == tf.bool
    np.testing.assert_array_equal(matched.numpy(), [True, False, True])
    np.testing.assert_array_equal(
        tf.strings.regex_full_match([["TF"], ["tf"]], "[A-Z]+").numpy(), [[True], [False]])
    with tf.compat.v1.Graph().as_default():
        words = tf.compat.v1.placeholder(tf.string, [None])
        node = tf.strings.regex_full_match(words, "[A-Z]+")
        assert node.shape.as_list() == [None] and node.dtype == tf.bool
        with tf.compat.v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(node, {words: ["TF", "tf"]}), [True, False])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern"):
        tf.strings.regex_full_match(["a"], "(")
