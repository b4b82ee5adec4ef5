"""`tf.version`: the TensorFlow version whose API is emulated (TF's framework/versions.py).

A script written for TF1 sees 1.15.5, the last TF1 release; one written for TF2 sees 2.15.1,
the last release whose `tf.keras` is Keras 2 and whose API lists `tfcompat/_symbols` hold.
Scripts check these (`tf.__version__.startswith('2')`); tfcompat's own version is
`tfcompat.__version__`. Under the runner `tensorflow.__version__` is `tf.version.VERSION`.
"""
from tfcompat._api import export_constant

TF1_VERSION, TF2_VERSION = "1.15.5", "2.15.1"

# TF2 has no top-level VERSION / GIT_VERSION; a script taken for TF2 that reads them anyway
# (an unused TF1 branch) sees TF2's values rather than TF1's.
_VERSION_PATHS = ["VERSION", "version.VERSION", "compat.v1.__version__", "compat.v2.__version__"]
export_constant(TF1_VERSION, v1=_VERSION_PATHS)
export_constant(TF2_VERSION, v2=_VERSION_PATHS)
# tf.keras.__version__: the Keras TF 1.15 bundled, and Keras 2.15 (what `import keras` is).
export_constant("2.2.4-tf", v1=["keras.__version__"])
export_constant("2.15.0", v2=["keras.__version__"])
export_constant("v" + TF1_VERSION, v1=["GIT_VERSION", "version.GIT_VERSION"])
export_constant("v" + TF2_VERSION, v2=["GIT_VERSION", "version.GIT_VERSION"])
