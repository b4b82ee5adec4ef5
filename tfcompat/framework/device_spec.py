"""`tf.DeviceSpec`: a (possibly partial) device name `/job:J/replica:R/task:T/device:TYPE:I`.

TF 2's `DeviceSpec` (`DeviceSpecV2`) is immutable (`replace`, `make_merged_spec`); TF 1's
(`DeviceSpecV1`) also has setters, `parse_from_string` updating it in place and `merge_from`.
Device types are checked as TF 2.15 checks them (CPU, GPU, TPU, CUSTOM, EPU, and the XLA_CPU /
XLA_GPU devices TF 1.15 listed); 'cpu' and 'gpu' are upper-cased.
"""
from tfcompat._api import tf_export

_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU", "XLA_CPU", "XLA_GPU"})


def _str_or_none(value):
    return None if value is None else str(value)


def _int_or_none(value):
    return None if value is None else int(value)


def _device_type_or_none(device_type):
    if device_type in ("cpu", "gpu"):
        return device_type.upper()
    return _str_or_none(device_type)


def _components(spec):
    """(job, replica, task, device_type, device_index) of a device string; ValueError as TF."""
    job = replica = task = device_type = device_index = None
    for part in (spec or "").split("/"):
        fields = part.split(":")
        if fields == [""]:
            continue
        count = len(fields)
        if count == 2 and fields[0] == "job":
            job = fields[1]
        elif count == 2 and fields[0] == "replica":
            replica = int(fields[1])
        elif count == 2 and fields[0] == "task":
            task = int(fields[1])
        elif count in (1, 2) and fields[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError("Cannot specify multiple device types: %s" % spec)
            device_type = fields[0].upper()
            if count == 2 and fields[1] != "*":
                device_index = int(fields[1])
        elif count == 3 and fields[0] == "device":
            if device_type is not None:
                raise ValueError("Cannot specify multiple device types: %s" % spec)
            device_type = fields[1]
            if fields[2] != "*":
                if not fields[2].isdigit():
                    raise ValueError("invalid literal for int: %s" % spec)
                device_index = int(fields[2])
        else:
            raise ValueError("Unknown attribute: '%s' in '%s'" % (fields[0], spec))
    return job, replica, task, device_type, device_index


def _to_string(job, replica, task, device_type, device_index):
    parts = []
    if job is not None:
        parts.append("/job:" + job)
    if replica is not None:
        parts.append("/replica:%d" % replica)
    if task is not None:
        parts.append("/task:%d" % task)
    if device_type is not None:
        parts.append("/device:%s:%s" % (device_type, "*" if device_index is None
                                        else device_index))
    return "".join(parts)


@tf_export("DeviceSpec", v1=[])
class DeviceSpecV2(object):
    """An immutable device specification; fields left None mean "any"."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = _str_or_none(job)
        self._replica = _int_or_none(replica)
        self._task = _int_or_none(task)
        self._device_type = _device_type_or_none(device_type)
        self._device_index = _int_or_none(device_index)

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    def _fields(self):
        return self._job, self._replica, self._task, self._device_type, self._device_index

    def to_string(self):
        """`/job:<name>/replica:<id>/task:<id>/device:<type>:<id>`, unset parts left out."""
        return _to_string(*self._fields())

    @classmethod
    def from_string(cls, spec):
        """A DeviceSpec parsed from a device string such as '/job:ps/task:1/device:GPU:0'
        or '/cpu:0'; ValueError for an unknown part or two device types."""
        return cls(*_components(spec))

    def parse_from_string(self, spec):
        """TF 2: a new DeviceSpec parsed from `spec` (this one is unchanged)."""
        return self.from_string(spec)

    def _merged_fields(self, dev):
        return tuple(theirs if theirs is not None else ours
                     for ours, theirs in zip(self._fields(), dev._fields()))

    def make_merged_spec(self, dev):
        """A new DeviceSpec with `dev`'s set fields taking precedence over this one's."""
        return self.__class__(*self._merged_fields(dev))

    def replace(self, **kwargs):
        """A new DeviceSpec with the given constructor fields overridden."""
        fields = dict(job=self.job, replica=self.replica, task=self.task,
                      device_type=self.device_type, device_index=self.device_index)
        fields.update(kwargs)
        return self.__class__(**fields)

    def __eq__(self, other):
        return isinstance(other, self.__class__) and self.to_string() == other.to_string()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return "<DeviceSpec %r>" % self.to_string()


def _setter(attr, convert):
    def set_field(self, value):
        setattr(self, attr, convert(value))
    return set_field


@tf_export(v1=["DeviceSpec"])
class DeviceSpecV1(DeviceSpecV2):
    """TF 1's mutable DeviceSpec: settable fields, in-place `parse_from_string`, `merge_from`."""

    __slots__ = ()

    job = property(DeviceSpecV2.job.fget, _setter("_job", _str_or_none))
    replica = property(DeviceSpecV2.replica.fget, _setter("_replica", _int_or_none))
    task = property(DeviceSpecV2.task.fget, _setter("_task", _int_or_none))
    device_type = property(DeviceSpecV2.device_type.fget,
                           _setter("_device_type", _device_type_or_none))
    device_index = property(DeviceSpecV2.device_index.fget,
                            _setter("_device_index", _int_or_none))

    def parse_from_string(self, spec):
        """TF 1: set every field from `spec` (unset parts become None) and return self."""
        (self.job, self.replica, self.task, self.device_type,
         self.device_index) = _components(spec)
        return self

    def merge_from(self, dev):
        """Set the fields `dev` sets (TF 1, in place)."""
        (self.job, self.replica, self.task, self.device_type,
         self.device_index) = self._merged_fields(dev)
