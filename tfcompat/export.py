"""`tfcompat export`: a saved model as a file plain PyTorch serves.

    tfcompat export EXPORT_DIR OUT.pt2 [--signature NAME]
    tfcompat export MODEL.h5 OUT.pt2
    tfcompat export CHECKPOINT_PREFIX OUT.pt2 --meta GRAPH.meta --inputs x:0[,..] --outputs y:0[,..]
    ... [--format onnx]  (OUT.onnx through torch.onnx.export; needs the `onnx` package)

The model is loaded the safe way (tfcompat's loaders: no pickle, no code from the file) and
the signature exported again with torch.export, its variables as buffers and unknown
dimensions dynamic: `torch.export.load(OUT.pt2).module()(**inputs)` returns the signature's
dict of outputs. What was exported (inputs, outputs, shapes, dtypes) is printed.
"""
import argparse
import os
import sys

import torch

from tfcompat.client.session import Session
from tfcompat.framework import dtypes
from tfcompat.framework.graph import Graph
from tfcompat.keras.saving import save as keras_save
from tfcompat.keras.saving.saved_model import traced_functions
from tfcompat.saved_model import (load_impl, loader_impl, programs, save_impl,
                                  saved_model_proto, tag_constants)
from tfcompat.saved_model.signature_constants import DEFAULT_SERVING_SIGNATURE_DEF_KEY
from tfcompat.train import saver as saver_module

USAGE = __doc__.split("\n\n")[1]


class _Signature(object):
    """What an export needs: a module (inputs, then variables -> flat outputs), its inputs as
    (name, shape, torch dtype), the variables' values and the named outputs."""

    def __init__(self, module, inputs, variables, output_names, output_positions):
        self.module = module
        self.inputs = inputs
        self.variables = variables
        self.output_names = output_names
        self.output_positions = output_positions


def _from_concrete(concrete):
    """A traced ConcreteFunction's signature (TF's input and output keys)."""
    entry = save_impl.signature_keys(concrete)
    inputs = [(name, None if p.shape.rank is None else p.shape.as_list(), p.dtype.torch_dtype)
              for name, p in zip(entry["inputs"], concrete.inputs)]
    variables = concrete._extra.values()
    return _Signature(concrete._module, inputs, variables, entry["outputs"],
                      entry["output_positions"])


def _from_saved_model(path, key):
    loaded = load_impl.load(path)
    if key not in loaded.signatures:
        raise SystemExit("tfcompat export: %s has no signature %r (it has: %s)"
                         % (path, key, ", ".join(sorted(loaded.signatures)) or "none"))
    signature = loaded.signatures[key]
    concrete = signature._concrete
    specs = [leaf["tensor"] for spec in concrete._specs for leaf in load_impl.tensor_specs(spec)]
    inputs = [(name, spec["shape"], dtypes.as_dtype(spec["dtype"]).torch_dtype)
              for name, spec in zip(signature._input_names, specs)]
    variables = [extra._storage_for_graph() if hasattr(extra, "_storage_for_graph") else extra
                 for extra in concrete._extras]
    return _Signature(concrete._module, inputs, variables, signature._output_names,
                      signature._output_positions)


def _from_tensorflow_saved_model(path, key):
    """A signature of a TF 2 SavedModel written by TensorFlow: its function rebuilt from
    TF's ops (tf.saved_model.load), traced once more as a tfcompat function."""
    loaded = load_impl.load(path)
    if key not in loaded.signatures:
        raise SystemExit("tfcompat export: %s has no signature %r (it has: %s)"
                         % (path, key, ", ".join(sorted(loaded.signatures)) or "none"))
    revived = loaded.signatures[key]
    concrete = revived.traced
    _, named = revived.structured_input_signature
    inputs = [(name, None if spec.shape.rank is None else spec.shape.as_list(),
               spec.dtype.torch_dtype) for name, spec in sorted(named.items())]
    variables = concrete._extra.values()
    output_names = sorted(revived.structured_outputs)
    return _Signature(concrete._module, inputs, variables, output_names,
                      list(range(len(output_names))))


def _from_h5(path):
    model = keras_save.load_model(path, compile=False)
    _, serving = traced_functions(model)
    if serving is None:
        raise SystemExit("tfcompat export: the model in %s has no known input shapes" % path)
    return _from_concrete(serving.get_concrete_function())


def _from_graph(graph, session, inputs, outputs):
    """A signature of a TF1 graph restored in `session`: `inputs`/`outputs` list (key,
    tensor)."""
    module, specs, values = programs.graph_signature(graph, session, inputs, outputs)
    return _Signature(module, specs, values, [key for key, _ in outputs],
                      list(range(len(outputs))))


def _from_meta_graph(prefix, meta, inputs, outputs):
    """A TF1 graph (`.meta`) restored from checkpoint `prefix`, as a signature from the
    named input tensors to the named output tensors."""
    graph = Graph()
    with graph.as_default():
        saver = saver_module.import_meta_graph(meta)
        session = Session(graph=graph)
        if saver is not None:
            saver.restore(session, prefix)
        return _from_graph(graph, session,
                           [(name.split(":")[0], graph.get_tensor_by_name(name)) for name in inputs],
                           [(name.split(":")[0], graph.get_tensor_by_name(name)) for name in outputs])


def _from_v1_saved_model(path, key):
    """A signature of a TF1 SavedModel (tfcompat's Builder / simple_save) with tag serve."""
    graph = Graph()
    session = Session(graph=graph)
    meta = loader_impl.load(session, [tag_constants.SERVING], path)
    if key not in meta.signature_def:
        raise SystemExit("tfcompat export: %s has no signature %r (it has: %s)"
                         % (path, key, ", ".join(sorted(meta.signature_def)) or "none"))
    signature = meta.signature_def[key]
    with graph.as_default():
        return _from_graph(
            graph, session,
            [(name, graph.get_tensor_by_name(info.name))
             for name, info in sorted(signature.inputs.items())],
            [(name, graph.get_tensor_by_name(info.name))
             for name, info in sorted(signature.outputs.items())])


def _describe(signature, key, out):
    lines = ["exported %s to %s" % (key, out), "  inputs:"]
    for name, shape, dtype in signature.inputs:
        lines.append("    %s: shape %s, %s" % (name, _shape_text(shape),
                                               dtypes.from_torch(dtype).name))
    lines.append("  outputs:")
    return lines


def _output_lines(program, signature):
    """The outputs' names, static shapes (None for sizes that follow the inputs') and dtypes."""
    output_node = [node for node in program.graph.nodes if node.op == "output"][0]
    values = [node.meta["val"] for node in output_node.args[0]]
    return ["    %s: shape %s, %s" % (name, _shape_text(
        [size if isinstance(size, int) else None for size in value.shape]),
        dtypes.from_torch(value.dtype).name)
        for name, value in zip(signature.output_names, values)]


def _shape_text(shape):
    if shape is None:
        return "unknown"
    return "(%s)" % ", ".join("None" if size is None else str(size) for size in shape)


def main(argv):
    """`tfcompat export` entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="tfcompat export", usage=USAGE)
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--signature", default=DEFAULT_SERVING_SIGNATURE_DEF_KEY)
    parser.add_argument("--format", choices=("pt2", "onnx"), default=None)
    parser.add_argument("--meta")
    parser.add_argument("--inputs")
    parser.add_argument("--outputs")
    args = parser.parse_args(argv)
    fmt = args.format or ("onnx" if args.out.endswith(".onnx") else "pt2")
    if fmt == "onnx":
        try:
            # in-function: onnx is an optional dependency, needed for --format onnx only
            import onnx  # noqa: F401
        except ImportError:
            sys.stderr.write("tfcompat export: --format onnx needs the onnx package "
                             "(pip install onnx onnxscript); or export to .pt2\n")
            return 2
    source = args.source
    if args.meta:
        if not (args.inputs and args.outputs):
            sys.stderr.write("tfcompat export: --meta needs --inputs and --outputs (tensor "
                             "names, comma separated)\n")
            return 2
        signature = _from_meta_graph(source, args.meta, args.inputs.split(","),
                                     args.outputs.split(","))
        key = "graph"
    elif os.path.isdir(source) and load_impl.is_tf2_saved_model(source):
        signature = _from_saved_model(source, args.signature)
        key = args.signature
    elif os.path.isdir(source) and load_impl.written_by_tensorflow(
            saved_model_proto.read(source)):
        signature = _from_tensorflow_saved_model(source, args.signature)
        key = args.signature
    elif os.path.isdir(source):
        signature = _from_v1_saved_model(source, args.signature)
        key = args.signature
    elif os.path.isfile(source):
        signature = _from_h5(source)
        key = DEFAULT_SERVING_SIGNATURE_DEF_KEY
    else:
        sys.stderr.write("tfcompat export: no SavedModel directory or .h5 file at %s\n" % source)
        return 2
    program = programs.serving_program(signature.module, signature.inputs, signature.variables,
                                       signature.output_names, signature.output_positions,
                                       "the signature %r of %s" % (key, source))
    if fmt == "onnx":
        examples = {name: value for name, value in zip(
            [name for name, _, _ in signature.inputs], program.example_inputs[1].values())}
        torch.onnx.export(program, (), args.out, kwargs=examples, dynamo=True)
    else:
        torch.export.save(program, args.out)
    lines = _describe(signature, key, args.out) + _output_lines(program, signature)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
