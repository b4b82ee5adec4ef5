"""Writes tfcompat/ops/raw_op_defs.json: every `tf.raw_ops` op of real TensorFlow with its
keyword arguments (TF's Python signature: inputs, then the attrs a caller sets, with their
defaults), its input and output args (a list arg names its length or type-list attr) and
its attrs' types. tfcompat's raw-op entries and GraphDef importer read it.

Run with real TensorFlow (a side virtualenv, never tfcompat's):
    TF_USE_LEGACY_KERAS=1 /work/tfvenv/bin/python scripts/make_raw_op_defs.py
"""
import inspect
import json
import os

import tensorflow as tf
from tensorflow.python.framework import op_def_registry

OUT = os.path.join(os.path.dirname(__file__), "..", "tfcompat", "ops", "raw_op_defs.json")


def _json_default(value):
    """A Python default of a raw op's signature as JSON (dtypes by name)."""
    if isinstance(value, tf.DType):
        return {"dtype": value.name}
    if isinstance(value, (list, tuple)):
        return [_json_default(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if type(value).__name__ == "TensorProto":
        array = tf.make_ndarray(value)
        return {"tensor": array.tolist(), "dtype": tf.as_dtype(array.dtype).name}
    return value


def _args(arg_defs):
    """[name, length]: length None (one tensor), a number attr ("N") or a type-list attr."""
    return [[arg.name, arg.number_attr or arg.type_list_attr or None] for arg in arg_defs]


def _op_def_names(op_def):
    """The op-def names of the raw op's keyword arguments, in TF's Python order: the inputs,
    then the attrs no input implies (those without a default first), so `params[i]` is
    `param_args[i]` of the NodeDef (TF's Python names differ for a few: Mean's
    `reduction_indices` is `axis`)."""
    implied = set()
    for arg in op_def.input_arg:
        implied.update(a for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a)
    attrs = [a for a in op_def.attr if a.name not in implied]
    ordered = [a for a in attrs if not a.HasField("default_value")] + \
        [a for a in attrs if a.HasField("default_value")]
    return [arg.name for arg in op_def.input_arg] + [a.name for a in ordered]


def op_entry(name):
    op_def = op_def_registry.get(name)
    signature = inspect.signature(getattr(tf.raw_ops, name))
    params = []
    for parameter in signature.parameters.values():
        if parameter.name == "name":
            continue
        if parameter.default is inspect.Parameter.empty:
            params.append([parameter.name])
        else:
            params.append([parameter.name, _json_default(parameter.default)])
    param_args = _op_def_names(op_def)
    if len(param_args) != len(params):
        raise AssertionError("%s: signature %s, op def args %s" % (name, params, param_args))
    return {
        "params": params,
        "param_args": param_args,
        "inputs": _args(op_def.input_arg),
        "outputs": _args(op_def.output_arg),
        "attrs": {attr.name: attr.type for attr in op_def.attr},
        "stateful": bool(op_def.is_stateful),
    }


def main():
    names = sorted(n for n in dir(tf.raw_ops) if not n.startswith("_"))
    entries = {name: op_entry(name) for name in names if op_def_registry.get(name) is not None}
    with open(OUT, "w") as f:
        f.write("{\n")
        f.write(",\n".join("%s: %s" % (json.dumps(name), json.dumps(entries[name],
                                                                  sort_keys=True))
                           for name in sorted(entries)))
        f.write("\n}\n")
    print("%d raw ops (TF %s) -> %s" % (len(entries), tf.__version__, os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
