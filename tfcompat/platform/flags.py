"""TF 1.x `tf.app.flags` / `tf.flags` (one module object): absl-style command-line flags.

A stand-alone implementation of the absl.flags behaviour TF 1.15 re-exported (absl is not a
dependency): `DEFINE_*` register typed flags in `FLAGS`; `FLAGS(argv)` parses `--name=value`,
`--name value`, `-name=value`, `--flag`/`--noflag` for booleans, stops at `--`, keeps
positional arguments (GNU style) and raises `UnrecognizedFlagError` for unknown flags unless
`known_only=True` (what `tf.app.run` uses). Values are checked by the flag's parser
(integer/float bounds, enum values) and by validators (`mark_flag_as_required`,
`register_validator`); failures raise `IllegalFlagValueError`.

TF's wrapper behaviour is kept: reading a flag before parsing parses `sys.argv` first (absl
itself would raise `UnparsedFlagAccessError`), and the old keyword names `flag_name`,
`default_value`, `docstring` are accepted with a warning.
Not provided: `--flagfile`, `--undefok`, key flags, XML help, enum_class flags (asking for an
absl name we lack raises NotImplementedError naming it).
"""
import csv as _csv
import difflib as _difflib
import functools as _functools
import sys as _sys
import textwrap as _textwrap
import warnings as _warnings

from tfcompat import _api

# ---------------------------------------------------------------- errors (absl's classes)


class Error(Exception):
    """The base class of flag errors."""


class CantOpenFlagFileError(Error):
    """A --flagfile could not be read."""


class DuplicateFlagError(Error):
    """A flag name was defined twice."""


class IllegalFlagValueError(Error):
    """A flag was given (or set to) a value its parser or validators reject."""


class UnrecognizedFlagError(Error):
    """The command line names a flag that is not defined."""

    def __init__(self, flagname, flagvalue="", suggestions=None):
        self.flagname = flagname
        self.flagvalue = flagvalue
        tip = ". Did you mean: %s ?" % ", ".join(suggestions) if suggestions else ""
        super(UnrecognizedFlagError, self).__init__(
            "Unknown command line flag '%s'%s" % (flagname, tip))


class UnparsedFlagAccessError(Error):
    """A flag of a FlagValues that was never parsed was read."""


class ValidationError(Error):
    """A validator rejected a flag value."""


class FlagNameConflictsWithMethodError(Error):
    """A flag name is the name of a FlagValues method."""


# ---------------------------------------------------------------- parsers


class ArgumentParser(object):
    """Parses string flag values (the parser of DEFINE_string)."""

    syntactic_help = ""

    def parse(self, argument):
        if not isinstance(argument, str):
            raise TypeError('flag value must be a string, found "%s"' % type(argument))
        return argument

    def flag_type(self):
        return "string"

    def serialize(self, value):
        return str(value)


class BooleanParser(ArgumentParser):
    """true/t/1 and false/f/0 in any case, Python bools and the integers 0 and 1."""

    def parse(self, argument):
        if isinstance(argument, str):
            if argument.lower() in ("true", "t", "1"):
                return True
            if argument.lower() in ("false", "f", "0"):
                return False
            raise ValueError("Non-boolean argument to boolean flag", argument)
        if isinstance(argument, int) and argument in (0, 1):
            return bool(argument)
        if isinstance(argument, int):
            raise ValueError("Non-boolean argument to boolean flag", argument)
        raise TypeError("Non-boolean argument to boolean flag", argument)

    def flag_type(self):
        return "bool"

    def serialize(self, value):
        return "true" if value else "false"


class _NumericParser(ArgumentParser):
    """A number with optional inclusive bounds; the help names the accepted range."""

    number_article, number_name = "a", "number"

    def __init__(self, lower_bound=None, upper_bound=None):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.syntactic_help = self._range_help(lower_bound, upper_bound)

    def _range_help(self, lower, upper):
        name = self.number_name
        if lower is not None and upper is not None:
            return "%s %s in the range [%s, %s]" % (self.number_article, name, lower, upper)
        if lower == 0:
            return "a non-negative " + name
        if upper == 0:
            return "a non-positive " + name
        if upper is not None:
            return "%s <= %s" % (name, upper)
        if lower is not None:
            return "%s >= %s" % (name, lower)
        return "%s %s" % (self.number_article, name)

    def is_outside_bounds(self, value):
        return (self.lower_bound is not None and value < self.lower_bound) or \
            (self.upper_bound is not None and value > self.upper_bound)

    def parse(self, argument):
        value = self.convert(argument)
        if self.is_outside_bounds(value):
            raise ValueError("%s is not %s" % (value, self.syntactic_help))
        return value


class IntegerParser(_NumericParser):
    """Decimal, 0x.. (hex) and 0o.. (octal) integers."""

    number_article, number_name = "an", "integer"

    def _range_help(self, lower, upper):
        if (lower is None) != (upper is None) and (lower == 1 or upper == -1):
            return "a positive integer" if lower == 1 else "a negative integer"
        return super(IntegerParser, self)._range_help(lower, upper)

    def convert(self, argument):
        if isinstance(argument, int) and not isinstance(argument, bool):
            return argument
        if isinstance(argument, str):
            base = 10
            if len(argument) > 2 and argument[0] == "0":
                base = {"o": 8, "x": 16, "X": 16}.get(argument[1], 10)
            return int(argument, base)
        raise TypeError("Expect argument to be a string or int, found %s" % type(argument))

    def flag_type(self):
        return "int"


class FloatParser(_NumericParser):

    def convert(self, argument):
        if isinstance(argument, (int, float, str)) and not isinstance(argument, bool):
            return float(argument)
        raise TypeError("Expect argument to be a string, int, or float, found %s"
                        % type(argument))

    def flag_type(self):
        return "float"


class EnumParser(ArgumentParser):
    """One of `enum_values` (case-sensitive unless asked otherwise)."""

    def __init__(self, enum_values, case_sensitive=True):
        if not enum_values:
            raise ValueError('enum_values cannot be empty, found "%s"' % (enum_values,))
        if isinstance(enum_values, str):
            raise ValueError('enum_values cannot be a str, found "%s"' % enum_values)
        self.enum_values = list(enum_values)
        self.case_sensitive = case_sensitive
        self.syntactic_help = ""

    def parse(self, argument):
        if self.case_sensitive:
            if argument in self.enum_values:
                return argument
        else:
            for value in self.enum_values:
                if value.upper() == str(argument).upper():
                    return value
        raise ValueError("value should be one of <%s>" % "|".join(self.enum_values))

    def flag_type(self):
        return "string enum"


class ListParser(ArgumentParser):
    """A comma-separated list (CSV quoting allowed); a list is taken as it is."""

    syntactic_help = "a comma separated list"

    def parse(self, argument):
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        try:
            return [s.strip() for s in list(_csv.reader([argument], strict=True))[0]]
        except _csv.Error as e:
            raise ValueError("Unable to parse the value %r as a comma separated list: %s"
                             % (argument, e))

    def flag_type(self):
        return "list"

    def serialize(self, value):
        return ",".join(str(v) for v in value)


class WhitespaceSeparatedListParser(ListParser):
    syntactic_help = "a whitespace separated list"

    def parse(self, argument):
        if isinstance(argument, list):
            return argument
        return argument.split() if argument else []

    def serialize(self, value):
        return " ".join(str(v) for v in value)


BaseListParser = ListParser

# ---------------------------------------------------------------- flags


class Flag(object):
    """One flag: its parser, default, current value and validators."""

    def __init__(self, parser, name, default, help_string, short_name=None, boolean=False):
        self.parser = parser
        self.name = name
        self.help = help_string or "(no help available)"
        self.short_name = short_name
        self.boolean = boolean
        self.present = 0
        self.using_default_value = True
        self.validators = []
        self.value = None
        self._set_default(default)

    def _parse(self, argument):
        try:
            return self.parser.parse(argument)
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError("flag --%s=%s: %s" % (self.name, argument, e))

    def parse(self, argument):
        self.value = self._parse(argument)
        self.present += 1

    def _set_default(self, value):
        self.default = None if value is None else self._parse(value)
        if self.using_default_value:
            self.value = self.default

    @property
    def default_as_str(self):
        if self.default is None:
            return None
        if self.boolean:
            return "true" if self.default else "false"
        return repr(self.parser.serialize(self.default))

    def flag_type(self):
        return self.parser.flag_type()

    def unparse(self):
        self.value = self.default
        self.using_default_value = True
        self.present = 0

    def serialize(self):
        """The flag as a command-line argument ("--name=value", "--noname")."""
        if self.value is None:
            return ""
        if self.boolean:
            return "--%s%s" % ("" if self.value else "no", self.name)
        return "--%s=%s" % (self.name, self.parser.serialize(self.value))


class BooleanFlag(Flag):
    def __init__(self, name, default, help_string, short_name=None, **unused):
        super(BooleanFlag, self).__init__(BooleanParser(), name, default, help_string,
                                          short_name=short_name, boolean=True)


class EnumFlag(Flag):
    def __init__(self, name, default, help_string, enum_values, short_name=None,
                 case_sensitive=True, **unused):
        parser = EnumParser(enum_values, case_sensitive)
        super(EnumFlag, self).__init__(parser, name, default, help_string,
                                       short_name=short_name)
        self.help = "<%s>: %s" % ("|".join(parser.enum_values), self.help)


class MultiFlag(Flag):
    """A flag that may be repeated; its value is the list of all values given."""

    def __init__(self, parser, name, default, help_string, short_name=None):
        super(MultiFlag, self).__init__(parser, name, default, help_string,
                                        short_name=short_name)
        self.help += "; repeat this option to specify a list of values"

    def _parse(self, arguments):
        if isinstance(arguments, (list, tuple)):
            arguments = list(arguments)
        else:
            arguments = [arguments]
        return [super(MultiFlag, self)._parse(item) for item in arguments]

    def parse(self, arguments):
        values = self._parse(arguments)
        if self.present:
            self.value.extend(values)
        else:
            self.value = values
        self.present += len(values)

    @property
    def default_as_str(self):
        if self.default is None:
            return None
        return repr(",".join(self.parser.serialize(v) for v in self.default))

    def serialize(self):
        return " ".join("--%s=%s" % (self.name, self.parser.serialize(v))
                        for v in self.value or [])


class _Validator(object):
    """checker(values) must be true for the flags named; otherwise `message` is reported."""

    def __init__(self, flag_names, checker, message, single):
        self.flag_names = flag_names
        self.checker = checker
        self.message = message
        self.single = single

    def verify(self, flag_values):
        """Returns None or the error text for these flags' current values."""
        values = {name: flag_values[name].value for name in self.flag_names}
        try:
            ok = self.checker(values[self.flag_names[0]] if self.single else values)
        except ValidationError as e:
            ok, message = False, str(e)
        else:
            message = self.message
        if ok:
            return None
        shown = ", ".join("--%s=%s" % (name, values[name]) for name in self.flag_names)
        return "flag%s %s: %s" % ("" if self.single else "s", shown, message)


# ---------------------------------------------------------------- FlagValues


def _calling_module():
    """(name, id) of the module calling into this one; the main script is named by argv[0]."""
    frame = _sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if name != __name__:
            module = _sys.modules.get(name)
            if name == "__main__" and _sys.argv and _sys.argv[0]:
                name = _sys.argv[0]
            return name, id(module)
        frame = frame.f_back
    return "<unknown>", 0


class FlagValues(object):
    """A registry of flags; flag values are read and set as attributes.

    Reading a flag of an unparsed FlagValues raises UnparsedFlagAccessError (absl); the
    module's FLAGS parses sys.argv instead (TF).
    """

    def __init__(self):
        self.__dict__["__flags"] = {}
        self.__dict__["__flag_modules"] = {}
        self.__dict__["__multi_validators"] = []
        self.__dict__["__parsed"] = False

    def _flags(self):
        return self.__dict__["__flags"]

    # attribute access --------------------------------------------------------

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        flags = self._flags()
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["__parsed"]:
            self._read_before_parsing(name)
        return flags[name].value

    def _read_before_parsing(self, name):
        raise UnparsedFlagAccessError(
            "Trying to access flag --%s before flags were parsed." % name)

    def __setattr__(self, name, value):
        flags = self._flags()
        if name not in flags:
            raise UnrecognizedFlagError(name, value)
        flags[name].value = value
        self._assert_validators(flags[name].validators)
        flags[name].using_default_value = False

    def __delattr__(self, name):
        flags = self._flags()
        if name not in flags:
            raise AttributeError(name)
        flag = flags[name]
        for key in [k for k, f in flags.items() if f is flag]:
            del flags[key]

    def __getitem__(self, name):
        return self._flags()[name]

    def __setitem__(self, name, flag):
        """Registers `flag` under `name` (and its short name)."""
        flags = self._flags()
        if not isinstance(flag, Flag):
            raise IllegalFlagValueError(flag)
        if not isinstance(name, str) or not name:
            raise Error("Flag name must be a non-empty string")
        if " " in name:
            raise Error("Flag name cannot contain a space")
        if callable(getattr(type(self), name, None)):
            raise FlagNameConflictsWithMethodError(
                'Cannot define a flag named "%s". It conflicts with a method on class "%s".'
                % (name, type(self).__name__))
        module_name, module_id = _calling_module()
        if name in flags:
            first_module, first_id = self.__dict__["__flag_modules"].get(
                name, ("<unknown>", 0))
            if first_module == module_name and first_id != module_id:
                return  # the defining module was imported again under the same name
            raise DuplicateFlagError(
                "The flag '%s' is defined twice. First from %s, Second from %s.  "
                "Description from first occurrence: %s"
                % (name, first_module, module_name, flags[name].help))
        flags[name] = flag
        self.__dict__["__flag_modules"][name] = (module_name, module_id)
        if flag.short_name:
            flags[flag.short_name] = flag

    def __contains__(self, name):
        return name in self._flags()

    def __iter__(self):
        return iter(self._flags())

    def __len__(self):
        return len(self._flags())

    # parsing -----------------------------------------------------------------

    def __call__(self, argv, known_only=False):
        """Parses flags in argv[1:]; returns [argv[0]] + the arguments that are not flags."""
        if isinstance(argv, (str, bytes)):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string.")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program "
                             "name as the first element.")
        unknown, rest = self._parse_args(list(argv[1:]), known_only)
        for name, _ in unknown:
            names = [n for n in self._flags() if len(n) > 1]
            raise UnrecognizedFlagError(
                name, suggestions=_difflib.get_close_matches(name, names, n=3, cutoff=0.7))
        self.mark_as_parsed()
        self.validate_all_flags()
        return [argv[0]] + rest

    def _parse_args(self, args, known_only):
        """(unknown (name, arg) pairs, remaining arguments), parsing known flags in order."""
        flags = self._flags()
        unknown, rest = [], []
        position = 0
        while position < len(args):
            arg = args[position]
            position += 1
            if arg == "--":
                rest.extend(args[position - 1:] if known_only else args[position:])
                break
            if not arg.startswith("-"):
                rest.append(arg)
                continue
            name, sep, value = (arg[2:] if arg.startswith("--") else arg[1:]).partition("=")
            if not name:
                rest.append(arg)
                continue
            value = value if sep else None
            flag = flags.get(name)
            if flag is not None and value is None:
                if flag.boolean:
                    value = "true"
                elif position < len(args):
                    value = args[position]
                    position += 1
                else:
                    raise Error("Missing value for flag " + arg)
            elif flag is None and name.startswith("no") and len(name) > 2 and \
                    getattr(flags.get(name[2:]), "boolean", False):
                if value is not None:
                    raise ValueError(arg + " does not take an argument")
                flag, value = flags[name[2:]], "false"
            if flag is not None:
                flag.parse(value)
                flag.using_default_value = False
            elif known_only:
                rest.append(arg)
            else:
                unknown.append((name, arg))
        return unknown, rest

    def is_parsed(self):
        return self.__dict__["__parsed"]

    def mark_as_parsed(self):
        self.__dict__["__parsed"] = True

    def unparse_flags(self):
        """Back to the defaults, unparsed."""
        for flag in set(self._flags().values()):
            flag.unparse()
        self.__dict__["__parsed"] = False

    # validation --------------------------------------------------------------

    def _assert_validators(self, validators):
        messages = [m for m in (v.verify(self) for v in validators) if m]
        if messages:
            raise IllegalFlagValueError("\n".join(messages))

    def validate_all_flags(self):
        validators = []
        for flag in set(self._flags().values()):
            validators.extend(flag.validators)
        self._assert_validators(validators + self.__dict__["__multi_validators"])

    def _add_validator(self, validator):
        for name in validator.flag_names:
            if name not in self._flags():
                raise KeyError("Flag --%s is not defined; define it before adding a "
                               "validator for it." % name)
        if validator.single:
            self._flags()[validator.flag_names[0]].validators.append(validator)
        else:
            self.__dict__["__multi_validators"].append(validator)

    # inspection --------------------------------------------------------------

    def flag_values_dict(self):
        """{name: value} for every flag (short names included, as absl does)."""
        return {name: flag.value for name, flag in self._flags().items()}

    def get_flag_value(self, name, default):
        value = self.__getattr__(name)
        return default if value is None else value

    def set_default(self, name, value):
        flag = self._flags()[name]
        flag._set_default(value)
        self._assert_validators(flag.validators)

    def find_module_defining_flag(self, flagname, default=None):
        return self.__dict__["__flag_modules"].get(flagname, (default, 0))[0]

    def flags_into_string(self):
        lines = [flag.serialize() for flag in self._unique_flags() if flag.value is not None]
        return "".join(line + "\n" for line in lines if line)

    def _unique_flags(self):
        seen, result = set(), []
        for flag in self._flags().values():
            if id(flag) not in seen:
                seen.add(id(flag))
                result.append(flag)
        return result

    def _flags_by_module(self, only_module=None):
        grouped = {}
        for flag in self._unique_flags():
            module = self.find_module_defining_flag(flag.name, "<unknown>")
            if only_module is None or module == only_module:
                grouped.setdefault(module, []).append(flag)
        return grouped

    def _render(self, grouped):
        lines = []
        for module in sorted(grouped):
            lines.append("\n%s:" % module)
            for flag in sorted(grouped[module], key=lambda f: f.name):
                lines.append(_flag_help(flag))
        return "\n".join(lines)

    def get_help(self, prefix="", include_special_flags=True):
        """Help for every flag, grouped by defining module."""
        return self._render(self._flags_by_module())

    def main_module_help(self):
        """Help for the flags the main script defined."""
        main = _sys.argv[0] if _sys.argv and _sys.argv[0] else "__main__"
        return self._render(self._flags_by_module(main))

    def __str__(self):
        return self.get_help()


def _flag_help(flag, prefix="  "):
    """absl's help entry: "--name: help", then "(default: ...)" and the value syntax."""
    head = ("-%s," % flag.short_name if flag.short_name else "") + \
        ("--[no]%s: " % flag.name if flag.boolean else "--%s: " % flag.name) + flag.help
    wrap = _functools.partial(_textwrap.fill, width=80, subsequent_indent=prefix + "  ")
    parts = [wrap(head, initial_indent=prefix)]
    if flag.default_as_str:
        parts.append(wrap("(default: %s)" % flag.default_as_str, initial_indent=prefix + "  "))
    if flag.parser.syntactic_help:
        parts.append(wrap("(%s)" % flag.parser.syntactic_help, initial_indent=prefix + "  "))
    return "\n".join(parts)


class _TFFlagValues(FlagValues):
    """TF's FLAGS: reading any attribute before parsing parses sys.argv (all flags must be
    known, as in TF 1.x)."""

    def __getattr__(self, name):
        if not name.startswith("__") and not self.__dict__["__parsed"]:
            self(_sys.argv)
        return super(_TFFlagValues, self).__getattr__(name)


FLAGS = _TFFlagValues()

# ---------------------------------------------------------------- DEFINE_* and validators


class FlagHolder(object):
    """What DEFINE_* returns: a handle whose `.value` reads the flag from its FlagValues."""

    def __init__(self, flag_values, flag):
        self._flag_values = flag_values
        self.name = flag.name
        self._flag = flag

    @property
    def value(self):
        return getattr(self._flag_values, self.name)

    @property
    def default(self):
        return self._flag.default

    @property
    def present(self):
        return bool(self._flag.present)


_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accept_tf_argument_names(define):
    """TF 1.x accepted flag_name/default_value/docstring for name/default/help."""
    @_functools.wraps(define)
    def wrapper(*args, **kwargs):
        old = [k for k in _RENAMED_ARGUMENTS if k in kwargs]
        for key in old:
            kwargs[_RENAMED_ARGUMENTS[key]] = kwargs.pop(key)
        if old:
            from tfcompat.platform import tf_logging
            tf_logging.warning("Use of the keyword argument names (flag_name, default_value, "
                               "docstring) is deprecated, please use (name, default, help) "
                               "instead.")
        return define(*args, **kwargs)
    return wrapper


@_accept_tf_argument_names
def DEFINE_flag(flag, flag_values=FLAGS, module_name=None, required=False):  # noqa: N802
    """Registers a Flag object."""
    flag_values[flag.name] = flag
    if required:
        mark_flag_as_required(flag.name, flag_values)
    return FlagHolder(flag_values, flag)


@_accept_tf_argument_names
def DEFINE(parser, name, default, help, flag_values=FLAGS, serializer=None,  # noqa: A002,N802
           module_name=None, required=False, short_name=None, **unused):
    """A flag parsed by `parser` (any object with `parse(text)`)."""
    return DEFINE_flag(Flag(parser, name, default, help, short_name=short_name), flag_values,
                       required=required)


@_accept_tf_argument_names
def DEFINE_string(name, default, help, flag_values=FLAGS, required=False,  # noqa: A002,N802
                  short_name=None, **unused):
    return DEFINE(ArgumentParser(), name, default, help, flag_values, required=required,
                  short_name=short_name)


@_accept_tf_argument_names
def DEFINE_boolean(name, default, help, flag_values=FLAGS, module_name=None,  # noqa: A002,N802
                   required=False, short_name=None, **unused):
    return DEFINE_flag(BooleanFlag(name, default, help, short_name=short_name), flag_values,
                       required=required)


DEFINE_bool = DEFINE_boolean


@_accept_tf_argument_names
def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None,  # noqa: A002,N802
                   flag_values=FLAGS, required=False, short_name=None, **unused):
    holder = DEFINE(IntegerParser(lower_bound, upper_bound), name, default, help, flag_values,
                    required=required, short_name=short_name)
    _add_bounds_validator(name, flag_values)
    return holder


@_accept_tf_argument_names
def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None,  # noqa: A002,N802
                 flag_values=FLAGS, required=False, short_name=None, **unused):
    holder = DEFINE(FloatParser(lower_bound, upper_bound), name, default, help, flag_values,
                    required=required, short_name=short_name)
    _add_bounds_validator(name, flag_values)
    return holder


@_accept_tf_argument_names
def DEFINE_enum(name, default, enum_values, help, flag_values=FLAGS,  # noqa: A002,N802
                module_name=None, required=False, short_name=None, case_sensitive=True,
                **unused):
    return DEFINE_flag(EnumFlag(name, default, help, enum_values, short_name=short_name,
                                case_sensitive=case_sensitive), flag_values, required=required)


@_accept_tf_argument_names
def DEFINE_list(name, default, help, flag_values=FLAGS, required=False,  # noqa: A002,N802
                short_name=None, **unused):
    return DEFINE(ListParser(), name, default, help, flag_values, required=required,
                  short_name=short_name)


@_accept_tf_argument_names
def DEFINE_spaceseplist(name, default, help, comma_compat=False,  # noqa: A002,N802
                        flag_values=FLAGS, required=False, short_name=None, **unused):
    return DEFINE(WhitespaceSeparatedListParser(), name, default, help, flag_values,
                  required=required, short_name=short_name)


@_accept_tf_argument_names
def DEFINE_multi(parser, serializer, name, default, help, flag_values=FLAGS,  # noqa: A002,N802
                 module_name=None, required=False, short_name=None, **unused):
    """A repeatable flag: each occurrence adds a value (the first replaces the default)."""
    return DEFINE_flag(MultiFlag(parser, name, default, help, short_name=short_name),
                       flag_values, required=required)


@_accept_tf_argument_names
def DEFINE_multi_string(name, default, help, flag_values=FLAGS,  # noqa: A002,N802
                        required=False, **args):
    return DEFINE_multi(ArgumentParser(), None, name, default, help, flag_values,
                        required=required, **args)


@_accept_tf_argument_names
def DEFINE_multi_integer(name, default, help, lower_bound=None,  # noqa: A002,N802
                         upper_bound=None, flag_values=FLAGS, required=False, **args):
    return DEFINE_multi(IntegerParser(lower_bound, upper_bound), None, name, default, help,
                        flag_values, required=required, **args)


@_accept_tf_argument_names
def DEFINE_multi_float(name, default, help, lower_bound=None,  # noqa: A002,N802
                       upper_bound=None, flag_values=FLAGS, required=False, **args):
    return DEFINE_multi(FloatParser(lower_bound, upper_bound), None, name, default, help,
                        flag_values, required=required, **args)


@_accept_tf_argument_names
def DEFINE_multi_enum(name, default, enum_values, help, flag_values=FLAGS,  # noqa: A002,N802
                      case_sensitive=True, required=False, **args):
    return DEFINE_multi(EnumParser(enum_values, case_sensitive), None, name, default,
                        "<%s>: %s" % ("|".join(enum_values), help), flag_values,
                        required=required, **args)


def _add_bounds_validator(name, flag_values):
    """Values assigned in code (`FLAGS.n = 5`) are checked against the parser's bounds."""
    parser = flag_values[name].parser
    if parser.lower_bound is None and parser.upper_bound is None:
        return

    def checker(value):
        if value is not None and parser.is_outside_bounds(value):
            raise ValidationError("%s is not %s" % (value, parser.syntactic_help))
        return True
    flag_values._add_validator(_Validator([name], checker, "", single=True))


def register_validator(flag_name, checker, message="Flag validation failed",
                       flag_values=FLAGS):
    """`checker(value)` must return True (or raise ValidationError) whenever flags are
    parsed or the flag is assigned."""
    flag_values._add_validator(_Validator([flag_name], checker, message, single=True))


def validator(flag_name, message="Flag validation failed", flag_values=FLAGS):
    """Decorator form of register_validator."""
    def decorate(checker):
        register_validator(flag_name, checker, message, flag_values)
        return checker
    return decorate


def register_multi_flags_validator(flag_names, multi_flags_checker,
                                   message="Flags validation failed", flag_values=FLAGS):
    """`multi_flags_checker({name: value})` must return True for the named flags."""
    flag_values._add_validator(_Validator(list(flag_names), multi_flags_checker, message,
                                          single=False))


def multi_flags_validator(flag_names, message="Flag validation failed", flag_values=FLAGS):
    def decorate(checker):
        register_multi_flags_validator(flag_names, checker, message, flag_values)
        return checker
    return decorate


def mark_flag_as_required(flag_name, flag_values=FLAGS):
    """Parsing fails unless the flag ends up with a value other than None."""
    if flag_values[flag_name].default is not None:
        _warnings.warn("Flag --%s has a non-None default value; therefore, "
                       "mark_flag_as_required will pass even if flag is not specified in the "
                       "command line!" % flag_name, stacklevel=2)
    register_validator(flag_name, lambda value: value is not None,
                       message="Flag --%s must have a value other than None." % flag_name,
                       flag_values=flag_values)


def mark_flags_as_required(flag_names, flag_values=FLAGS):
    for flag_name in flag_names:
        mark_flag_as_required(flag_name, flag_values)


def mark_flags_as_mutual_exclusive(flag_names, required=False, flag_values=FLAGS):
    """At most one (with `required`, exactly one) of the flags may be other than None."""
    def checker(values):
        count = sum(1 for value in values.values() if value is not None)
        return count == 1 if required else count <= 1
    what = "exactly one" if required else "at most one"
    register_multi_flags_validator(
        flag_names, checker, "%s of (%s) must have a value other than None."
        % (what[0].upper() + what[1:], ", ".join(flag_names)), flag_values)


def mark_bool_flags_as_mutual_exclusive(flag_names, required=False, flag_values=FLAGS):
    """At most one (with `required`, exactly one) of the boolean flags may be True."""
    def checker(values):
        count = sum(1 for value in values.values() if value)
        return count == 1 if required else count <= 1
    what = "exactly one" if required else "at most one"
    register_multi_flags_validator(
        flag_names, checker, "%s of (%s) must be True."
        % (what[0].upper() + what[1:], ", ".join(flag_names)), flag_values)


def set_default(flag_holder, value):
    """Changes the default of the flag behind a FlagHolder."""
    flag_holder._flag_values.set_default(flag_holder.name, value)


def flag_dict_to_args(flag_map):
    """{name: value} -> command-line arguments (None omitted, booleans as --[no]name)."""
    for key, value in flag_map.items():
        if value is None:
            continue
        if isinstance(value, bool):
            yield "--%s%s" % ("" if value else "no", key)
        elif isinstance(value, (list, tuple)):
            yield "--%s=%s" % (key, ",".join(str(v) for v in value))
        else:
            yield "--%s=%s" % (key, value)


def __getattr__(name):
    """absl.flags names this module does not provide name themselves."""
    if not name.startswith("__") and "flags." + name in _api.known_paths("v1"):
        raise _api.UnimplementedSymbolError(
            "tfcompat does not implement tf.flags.%s (absl.flags) yet; please report the "
            "script that needs it" % name)
    raise AttributeError("module 'tf.flags' has no attribute '%s'" % name)


_api.tf_export(v1=["flags", "app.flags"])(_sys.modules[__name__])
