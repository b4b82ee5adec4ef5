"""TF 1.x `tf.contrib.training.HParams`: named hyperparameters with fixed types.

As TF 1.15: each hyperparameter keeps the type of its first value (a list's elements share the
type of its first element); `set_hparam`, `parse("a=1,b=[2,3],c=name")`, `parse_json` and
`override_from_dict` convert compatible values (int -> float) and reject others with
ValueError. HParams protos (`hparam_def`, `to_proto`) and `name[i]=v` index assignments are not
implemented.
"""
import json
import numbers
import re

from tfcompat._api import tf_export

_PARAM_RE = re.compile(r"""
  (?P<name>[a-zA-Z][\w\.]*)      # name: "learning_rate"
  (\[\s*(?P<index>\d+)\s*\])?     # optional index: "[1]"
  \s*=\s*
  ((?P<val>[^,\[]*)               # one value: "0.1"
   |
   \[(?P<vals>[^\]]*)\])          # a list: "[1,2,3]"
  ($|,\s*)""", re.VERBOSE)


def _parse_fail(name, var_type, value, values):
    raise ValueError("Could not parse hparam '%s' of type '%s' with value '%s' in %s"
                     % (name, var_type.__name__, value, values))


def _bool_parser(name, values):
    def parse_bool(value):
        if value in ("true", "True"):
            return True
        if value in ("false", "False"):
            return False
        try:
            return bool(int(value))
        except ValueError:
            _parse_fail(name, bool, value, values)
    return parse_bool


def _parse_values(values, type_map, ignore_unknown=False):
    """{name: value or list} from "name=value,name=[v1,v2]" using each name's type."""
    results = {}
    position = 0
    while position < len(values):
        match = _PARAM_RE.match(values, position)
        if not match:
            raise ValueError("Malformed hyperparameter value: %s" % values[position:])
        position = match.end()
        groups = match.groupdict()
        name = groups["name"]
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError("Unknown hyperparameter type for %s" % name)
        if groups["index"] is not None:
            raise NotImplementedError("HParams.parse of an indexed assignment (%s[%s]=...) is "
                                      "not implemented by tfcompat; assign the whole list"
                                      % (name, groups["index"]))
        if name in results:
            raise ValueError("Multiple assignments to variable '%s' in %s" % (name, values))
        type_ = type_map[name]
        parse = _bool_parser(name, values) if type_ == bool else type_
        if groups["val"] is not None:
            try:
                results[name] = parse(groups["val"])
            except ValueError:
                _parse_fail(name, type_, groups["val"], values)
        else:
            elements = [e for e in re.split("[ ,]", groups["vals"]) if e]
            try:
                results[name] = [parse(e) for e in elements]
            except ValueError:
                _parse_fail(name, type_, groups["vals"], values)
    return results


def _cast_to_type_if_compatible(name, param_type, value):
    """`value` as `param_type`, refusing lossy or meaningless conversions (float -> int,
    number <-> bool, non-string -> string, non-number -> number)."""
    fail = ValueError("Could not cast hparam '%s' of type '%s' from value %r"
                      % (name, param_type, value))
    if type(value) == param_type:
        return value
    if issubclass(param_type, type(None)):
        return value
    if issubclass(param_type, (str, bytes)) and not isinstance(value, (str, bytes)):
        raise fail
    if issubclass(param_type, bool) != isinstance(value, bool):
        raise fail
    if issubclass(param_type, numbers.Integral) and not isinstance(value, numbers.Integral):
        raise fail
    if issubclass(param_type, numbers.Number) and not isinstance(value, numbers.Number):
        raise fail
    return param_type(value)


@tf_export("contrib.training.HParams")
class HParams(object):
    """Hyperparameters as attributes: `HParams(learning_rate=0.1, layers=[64, 32])`."""

    _HAS_DYNAMIC_ATTRIBUTES = True

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        self._hparam_types = {}
        self._model_structure = model_structure
        if hparam_def is not None:
            raise NotImplementedError("HParams(hparam_def=...) (HParamDef protos) is not "
                                      "implemented by tfcompat; pass keyword values")
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        """Adds hyperparameter `name` whose type is that of `value` (of its first element for
        a list)."""
        if getattr(self, name, None) is not None:
            raise ValueError("Hyperparameter name is reserved: %s" % name)
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError("Multi-valued hyperparameters cannot be empty: %s" % name)
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name, value):
        """Sets an existing hyperparameter, converting `value` to its type."""
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError("Must not pass a list for single-valued parameter: %s" % name)
            setattr(self, name, [_cast_to_type_if_compatible(name, param_type, v)
                                 for v in value])
        else:
            if is_list:
                raise ValueError("Must pass a list for multi-valued parameter: %s." % name)
            setattr(self, name, _cast_to_type_if_compatible(name, param_type, value))

    def del_hparam(self, name):
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values):
        """Overrides from a string "name=value,list_name=[v1,v2]"; returns self."""
        type_map = {name: param_type for name, (param_type, _) in self._hparam_types.items()}
        return self.override_from_dict(_parse_values(values, type_map))

    def override_from_dict(self, values_dict):
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False):
        return json.dumps(self.values(), indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def parse_json(self, values_json):
        return self.override_from_dict(json.loads(values_json))

    def values(self):
        """{name: value} of every hyperparameter."""
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key, default=None):
        """The value of `key`, or `default` (which must suit the hyperparameter's type)."""
        if key not in self._hparam_types:
            return default
        if default is not None:
            param_type, is_list = self._hparam_types[key]
            type_str = "list<%s>" % param_type if is_list else str(param_type)
            fail = "Hparam '%s' of type '%s' is incompatible with default=%s" % (
                key, type_str, default)
            if is_list != isinstance(default, list):
                raise ValueError(fail)
            try:
                for value in (default if is_list else [default]):
                    _cast_to_type_if_compatible(key, param_type, value)
            except ValueError as e:
                raise ValueError("%s. %s" % (fail, e))
        return getattr(self, key)

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        return ",".join("{}={}".format(k, v) for k, v in self.values().items())

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, sorted(self.values().items()))
