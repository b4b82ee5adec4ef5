"""The `SavedModel` protocol buffer (`saved_model.pb`): TF's message, defined here over
tensorboard's `MetaGraphDef` (tensorboard ships every message it holds but this one). The
wire format is TF's, so TF's tools (`saved_model_cli show`) read the files we write.

Reading and writing: `read(export_dir)` raises TF's error classes naming the file;
`write(path, saved_model)` is atomic (temporary file, fsync, rename).
"""
import os

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from tensorboard.compat.proto import meta_graph_pb2

from tfcompat.framework import errors
from tfcompat.saved_model import constants
from tfcompat.train import checkpoint_format


def _define_saved_model():
    """TF's `tensorflow/core/protobuf/saved_model.proto`, in tensorboard's package."""
    pool = descriptor_pool.Default()
    name = "tensorboard/compat/proto/tfcompat_saved_model.proto"
    try:
        return message_factory.GetMessageClass(
            pool.FindMessageTypeByName("tensorboard.SavedModel"))
    except KeyError:
        pass
    file_proto = descriptor_pb2.FileDescriptorProto(
        name=name, package="tensorboard", syntax="proto3",
        dependency=[meta_graph_pb2.DESCRIPTOR.name])
    message = file_proto.message_type.add(name="SavedModel")
    field = descriptor_pb2.FieldDescriptorProto
    message.field.add(name="saved_model_schema_version", number=1,
                      type=field.TYPE_INT64, label=field.LABEL_OPTIONAL)
    message.field.add(name="meta_graphs", number=2, type=field.TYPE_MESSAGE,
                      label=field.LABEL_REPEATED, type_name=".tensorboard.MetaGraphDef")
    pool.Add(file_proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorboard.SavedModel"))


SavedModel = _define_saved_model()


def path_of(export_dir):
    return os.path.join(os.fspath(export_dir), constants.SAVED_MODEL_FILENAME_PB)


def read(export_dir):
    """The SavedModel proto of `export_dir`: NotFoundError when there is none (TF's
    `OSError` subclass), DataLossError naming the file when it does not parse."""
    path = path_of(export_dir)
    if not os.path.isfile(path):
        if os.path.isfile(os.path.join(os.fspath(export_dir), constants.SAVED_MODEL_FILENAME_PBTXT)):
            raise errors.UnimplementedError(
                None, None, "%s: SavedModels in text format (saved_model.pbtxt) are not read "
                "by tfcompat; write the binary saved_model.pb." % export_dir)
        raise errors.NotFoundError(
            None, None, "Could not find SavedModel .pb or .pbtxt at supplied export directory "
            "path: %s. Check that the directory exists and that you have the right "
            "permissions for accessing it." % export_dir)
    with open(path, "rb") as f:
        data = f.read()
    proto = SavedModel()
    try:
        proto.ParseFromString(data)
    except Exception as error:      # noqa: BLE001 - protobuf's DecodeError and friends
        raise errors.DataLossError(None, None, "%s is not a SavedModel: it does not parse "
                                   "(%s). The file is corrupted or truncated." % (path, error))
    return proto


def write(path, proto):
    """Write `proto` (a SavedModel) at `path`, atomically."""
    checkpoint_format.write_bytes_atomic(path, proto.SerializeToString())
