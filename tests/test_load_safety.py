"""Loading a model, a config or a pickled file never runs code named by the file.

Each malicious config/file below names `os.system`, `subprocess.Popen`, `builtins.eval`,
`builtins.__import__` or an attribute chain reaching them; its payload would create a marker
file. Loading must raise (ValueError or a TF error class) and the marker must not exist.
"""
import os
import pickle

import pytest

import tfcompat as tf
from tfcompat.framework import errors


def _assert_refused(load, marker, match=None):
    with pytest.raises((ValueError, errors.OpError), match=match):
        load()
    assert not marker.exists()


# ---------------------------------------------------------------- VocabularyProcessor pickles


class _Payload(object):
    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def _pickle_payloads(marker):
    import subprocess
    import builtins
    shell = "touch %s" % marker
    return [_Payload(os.system, shell), _Payload(subprocess.Popen, ["touch", str(marker)]),
            _Payload(builtins.eval, "open(%r, 'w').close()" % str(marker)),
            _Payload(builtins.__import__, "os"),
            _Payload(tf.contrib.learn.preprocessing.VocabularyProcessor.restore, str(marker))]


def test_vocabulary_processor_restore_refuses_other_globals(tmp_path):
    marker = tmp_path / "pwned"
    path = str(tmp_path / "vocab")
    processor = tf.contrib.learn.preprocessing.VocabularyProcessor(3)
    processor.fit(["a b"])
    for payload in _pickle_payloads(marker):
        for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
            processor.payload = payload
            with open(path, "wb") as f:
                f.write(pickle.dumps(processor, protocol=protocol))
            _assert_refused(lambda: tf.contrib.learn.preprocessing.VocabularyProcessor.restore(
                path), marker, match="Refusing to load")
    with open(path, "wb") as f:
        f.write(pickle.dumps({"not": "a processor"}))
    with pytest.raises(ValueError, match="not a VocabularyProcessor"):
        tf.contrib.learn.preprocessing.VocabularyProcessor.restore(path)


def test_vocabulary_processor_restores_pickles_naming_tf_modules(tmp_path):
    processor = tf.contrib.learn.preprocessing.VocabularyProcessor(4, min_frequency=0)
    processor.fit(["I like pears", "pears pears"])
    data = pickle.dumps(processor, protocol=0)
    ours = b"tfcompat.contrib.learn.preprocessing"
    tf_text = b"tensorflow.contrib.learn.python.learn.preprocessing."
    data = data.replace(ours + b"\nVocabularyProcessor", tf_text + b"text\nVocabularyProcessor")
    data = data.replace(ours + b"\nCategoricalVocabulary",
                        tf_text + b"categorical_vocabulary\nCategoricalVocabulary")
    data = data.replace(ours + b"\ntokenizer", tf_text + b"text\ntokenizer")
    assert ours not in data
    path = tmp_path / "tf_vocab"
    path.write_bytes(data)
    restored = tf.contrib.learn.preprocessing.VocabularyProcessor.restore(str(path))
    assert list(restored.transform(["pears like kiwis"]))[0].tolist() == [3, 2, 0, 0]
