"""tf.app.run, tf.app.flags / tf.flags (absl.flags and its one registry) and tf.logging."""
import logging
import os
import subprocess
import sys
import textwrap

import pytest
from absl import flags as absl_flags
from test_runner import run_script

import tfcompat as tf
from tfcompat import _import_hook
from tfcompat.platform import app, flags, tf_logging

flags.DEFINE_integer("test_platform_epochs", 1, "epochs for the app.run tests")
absl_flags.DEFINE_string("test_platform_absl_name", "x", "a flag defined through absl.flags")


def _flag_values():
    """A fresh FlagValues with one flag of each kind."""
    fv = flags.FlagValues()
    flags.DEFINE_string("name", "x", "a name", flag_values=fv)
    flags.DEFINE_integer("steps", 10, "steps", lower_bound=0, flag_values=fv)
    flags.DEFINE_float("rate", 0.5, "rate", lower_bound=0.0, upper_bound=1.0, flag_values=fv)
    flags.DEFINE_boolean("train", True, "train?", flag_values=fv)
    flags.DEFINE_bool("debug", False, "debug?", flag_values=fv, short_name="d")
    flags.DEFINE_list("layers", "64,32", "layer sizes", flag_values=fv)
    flags.DEFINE_enum("mode", "fast", ["fast", "slow"], "mode", flag_values=fv)
    flags.DEFINE_multi_string("tag", None, "tags", flag_values=fv)
    flags.DEFINE_multi_integer("seed", [1], "seeds", flag_values=fv)
    return fv


# argv tail, expected {flag: value} (others keep defaults), expected remaining argv tail
PARSE_CASES = [
    ([], {"name": "x", "steps": 10, "rate": 0.5, "train": True, "layers": ["64", "32"],
          "mode": "fast", "tag": None, "seed": [1]}, []),
    (["--name=y"], {"name": "y"}, []),
    (["--name", "y"], {"name": "y"}, []),
    (["-name=y"], {"name": "y"}, []),
    (["--steps=0x10"], {"steps": 16}, []),
    (["--rate", "1"], {"rate": 1.0}, []),
    (["--notrain"], {"train": False}, []),
    (["--train=false"], {"train": False}, []),
    (["--debug"], {"debug": True}, []),
    (["-d"], {"debug": True}, []),
    (["--debug", "false"], {"debug": True}, ["false"]),   # a bare boolean takes no value
    (["--layers=a, b,c"], {"layers": ["a", "b", "c"]}, []),
    (["--layers="], {"layers": []}, []),
    (["--mode=slow"], {"mode": "slow"}, []),
    (["--tag=a", "--tag", "b"], {"tag": ["a", "b"]}, []),
    (["--seed=3", "--seed=4"], {"seed": [3, 4]}, []),
    (["--steps=1", "--steps=2"], {"steps": 2}, []),        # the last one wins
    (["pos1", "--name=z", "pos2"], {"name": "z"}, ["pos1", "pos2"]),
    (["--name=a", "--", "--name=b"], {"name": "a"}, ["--name=b"]),
    (["-", "--name=a=b"], {"name": "a=b"}, ["-"]),
]


@pytest.mark.parametrize("args,values,rest", PARSE_CASES)
def test_parse_like_absl(args, values, rest):
    fv = _flag_values()
    assert fv(["prog"] + args) == ["prog"] + rest
    for name, value in values.items():
        assert getattr(fv, name) == value


# argv tail, error class, message fragment
PARSE_ERRORS = [
    (["--steps=-1"], flags.IllegalFlagValueError, "flag --steps=-1: -1 is not a non-negative "
                                                   "integer"),
    (["--steps=abc"], flags.IllegalFlagValueError, "flag --steps=abc"),
    (["--rate=2"], flags.IllegalFlagValueError, "2.0 is not a number in the range [0.0, 1.0]"),
    (["--mode=medium"], flags.IllegalFlagValueError, "value should be one of <fast|slow>"),
    (["--train=maybe"], flags.IllegalFlagValueError, "Non-boolean argument"),
    (["--nmae=y"], flags.UnrecognizedFlagError, "Unknown command line flag 'nmae'. Did you "
                                                "mean: name ?"),
    (["--steps"], flags.Error, "Missing value for flag --steps"),
    (["--notrain=1"], ValueError, "--notrain=1 does not take an argument"),
]


@pytest.mark.parametrize("args,error,message", PARSE_ERRORS)
def test_parse_errors(args, error, message):
    with pytest.raises(error) as info:
        _flag_values()(["prog"] + args)
    assert message in str(info.value)


def test_known_only_keeps_unknown_flags_in_order():
    fv = _flag_values()
    assert fv(["prog", "--other=1", "--name=q", "x", "--more"], known_only=True) == \
        ["prog", "--other=1", "x", "--more"]
    assert fv.name == "q"


def test_argv_must_be_a_non_empty_list():
    fv = _flag_values()
    with pytest.raises(TypeError):
        fv("--name=x")
    with pytest.raises(ValueError, match="program name"):
        fv([])


@pytest.fixture
def unparsed_flags():
    """absl's one FLAGS, unparsed before and after the test (all tests share it)."""
    absl_flags.FLAGS.unparse_flags()
    yield absl_flags.FLAGS
    absl_flags.FLAGS.unparse_flags()


def test_absl_flags_and_tf_flags_are_one_registry(unparsed_flags):
    assert tf.flags is tf.app.flags is tf.compat.v1.flags is flags
    assert isinstance(tf.flags.FLAGS, absl_flags.FlagValues)
    assert "test_platform_absl_name" in tf.flags.FLAGS and "test_platform_epochs" in unparsed_flags
    assert tf.app.flags.FLAGS["test_platform_absl_name"] is unparsed_flags["test_platform_absl_name"]
    # a flag defined through tf.flags belongs to the module calling DEFINE_*, as in TF
    assert unparsed_flags.find_module_defining_flag("test_platform_epochs") == __name__
    assert tf.flags.FLAGS(["prog", "--test_platform_epochs=3", "pos",
                           "--test_platform_absl_name=y"]) == ["prog", "pos"]
    assert unparsed_flags.test_platform_epochs == 3
    assert tf.compat.v1.flags.FLAGS.test_platform_absl_name == "y"
    tf.flags.FLAGS.test_platform_epochs = 7
    assert unparsed_flags.test_platform_epochs == 7
    with pytest.raises(absl_flags.DuplicateFlagError, match="test_platform_absl_name"):
        tf.flags.DEFINE_string("test_platform_absl_name", "z", "defined again through tf")
    assert tf.flags.DEFINE_enum_class is absl_flags.DEFINE_enum_class
    with pytest.raises(NotImplementedError, match="tf.flags.tf_decorator"):
        tf.flags.tf_decorator
    with pytest.raises(AttributeError):
        tf.flags.no_such_name


def test_reading_unparsed_tf_flags_parses_sys_argv_where_absl_raises(monkeypatch,
                                                                      unparsed_flags):
    monkeypatch.setattr(sys, "argv", ["script.py", "--test_platform_absl_name=q", "extra"])
    with pytest.raises(absl_flags.UnparsedFlagAccessError,
                       match="--test_platform_absl_name before flags were parsed"):
        unparsed_flags.test_platform_absl_name
    assert tf.flags.FLAGS.test_platform_absl_name == "q"
    assert unparsed_flags.is_parsed() and unparsed_flags.test_platform_absl_name == "q"
    with pytest.raises(AttributeError):
        tf.flags.FLAGS.undefined_flag


def test_tf_flags_implicit_parse_rejects_unknown_flags_like_tf(monkeypatch, unparsed_flags):
    monkeypatch.setattr(sys, "argv", ["kernel.py", "-f", "kernel.json"])   # a Jupyter kernel
    with pytest.raises(absl_flags.UnrecognizedFlagError, match="'f'"):
        tf.flags.FLAGS.test_platform_epochs
    assert not unparsed_flags.is_parsed()


def test_assignment_validation_and_flag_values_dict():
    fv = _flag_values()
    fv(["prog"])
    fv.steps = 5
    assert fv.steps == 5 and not fv["steps"].using_default_value
    with pytest.raises(flags.IllegalFlagValueError, match="-3 is not a non-negative integer"):
        fv.steps = -3
    with pytest.raises(flags.UnrecognizedFlagError):
        fv.no_such_flag = 1
    values = fv.flag_values_dict()
    assert values["name"] == "x" and values["debug"] is False and values["d"] is False
    assert fv["name"].default == "x" and fv["name"].help == "a name"


def test_duplicate_definition_and_method_name_conflict():
    fv = flags.FlagValues()
    flags.DEFINE_string("lr", "1", "learning rate", flag_values=fv)
    with pytest.raises(flags.DuplicateFlagError, match="The flag 'lr' is defined twice"):
        flags.DEFINE_string("lr", "2", "again", flag_values=fv)
    with pytest.raises(flags.FlagNameConflictsWithMethodError):
        flags.DEFINE_string("flag_values_dict", "", "", flag_values=fv)


def test_defaults_are_parsed_and_checked_at_definition():
    fv = flags.FlagValues()
    flags.DEFINE_integer("n", "7", "", flag_values=fv)
    flags.DEFINE_list("l", ["a"], "", flag_values=fv)
    assert fv["n"].default == 7 and fv["l"].default == ["a"]
    with pytest.raises(flags.IllegalFlagValueError, match="flag --m=-1"):
        flags.DEFINE_integer("m", -1, "", lower_bound=0, flag_values=fv)
    with pytest.raises(flags.IllegalFlagValueError, match="must be a string"):
        flags.DEFINE_string("s", 5, "", flag_values=fv)


def test_required_flags_and_validators():
    fv = flags.FlagValues()
    flags.DEFINE_string("data_dir", None, "where the data is", flag_values=fv)
    flags.mark_flag_as_required("data_dir", flag_values=fv)
    with pytest.raises(flags.IllegalFlagValueError,
                       match="flag --data_dir=None: Flag --data_dir must have a value other "
                             "than None"):
        fv(["prog"])
    assert fv(["prog", "--data_dir=/tmp"]) == ["prog"]
    flags.DEFINE_integer("even", 2, "", flag_values=fv)
    flags.register_validator("even", lambda v: v % 2 == 0, "must be even", flag_values=fv)
    with pytest.raises(flags.IllegalFlagValueError, match="flag --even=3: must be even"):
        fv(["prog", "--data_dir=/tmp", "--even=3"])
    flags.DEFINE_string("a", None, "", flag_values=fv)
    flags.DEFINE_string("b", None, "", flag_values=fv)
    flags.mark_flags_as_mutual_exclusive(["a", "b"], flag_values=fv)
    with pytest.raises(flags.IllegalFlagValueError, match="At most one of \\(a, b\\)"):
        fv(["prog", "--data_dir=/tmp", "--a=1", "--b=2"])


def test_required_flag_with_default_warns():
    fv = flags.FlagValues()
    flags.DEFINE_string("out", "here", "", flag_values=fv)
    with pytest.warns(UserWarning, match="non-None default"):
        flags.mark_flag_as_required("out", flag_values=fv)


def test_tf1_keyword_names_are_accepted_with_a_warning(caplog):
    fv = flags.FlagValues()
    with caplog.at_level(logging.WARNING):
        flags.DEFINE_integer(flag_name="epochs", default_value=3, docstring="epochs",
                             flag_values=fv)
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [(
        "root", "WARNING", "Use of the keyword argument names (flag_name, default_value, "
        "docstring) is deprecated, please use (name, default, help) instead.")]
    flags.DEFINE_string(flag_name="s", default_value="a", docstring="", flag_values=fv)
    flags.DEFINE_boolean(flag_name="b", default_value=True, docstring="", flag_values=fv)
    flags.DEFINE_bool(flag_name="c", default_value=False, docstring="", flag_values=fv)
    flags.DEFINE_float(flag_name="f", default_value=0.5, docstring="", flag_values=fv)
    fv(["prog"])
    assert (fv.epochs, fv.s, fv.b, fv.c, fv.f) == (3, "a", True, False, 0.5)
    assert fv["epochs"].help == "epochs"
    with pytest.raises(TypeError):   # TF renames them for those five DEFINEs only
        flags.DEFINE_enum(flag_name="e", default_value="a", enum_values=["a"], docstring="",
                          flag_values=fv)


def test_flag_holder_reads_the_flag():
    fv = flags.FlagValues()
    holder = flags.DEFINE_float("lr", 0.1, "", flag_values=fv)
    fv(["prog", "--lr=0.25"])
    assert holder.value == 0.25 and holder.default == 0.1 and holder.present


def test_internal_module_paths_are_the_real_modules():
    assert _import_hook._target("tensorflow.python.platform.flags") is flags
    assert _import_hook._target("tensorflow.python.platform.tf_logging") is tf_logging
    assert _import_hook._target("tensorflow.python.platform.app") is app
    assert _import_hook._target("tensorflow.app.flags") is flags


# ---------------------------------------------------------------- tf.app.run


@pytest.fixture
def app_state(unparsed_flags):
    """absl.app.run gives the root logger absl's handler and sets its level: undone after."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    unparsed_flags.unparse_flags()
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.parametrize("argv,expected_args,code", [
    (["prog"], ["prog"], None),
    (["prog", "--test_platform_epochs=4", "file.txt", "--test_platform_absl_name=y"],
     ["prog", "file.txt"], 0),
    (["prog", "--unknown_flag=1", "x", "--test_platform_epochs=4", "--more"],
     ["prog", "--unknown_flag=1", "x", "--more"], 3),
])
def test_app_run_calls_main_with_remaining_args_and_exits_with_its_value(argv, expected_args,
                                                                         code, app_state):
    seen = {}

    def main(args):
        seen.update(args=args, epochs=tf.flags.FLAGS.test_platform_epochs,
                    name=absl_flags.FLAGS.test_platform_absl_name)
        return code

    with pytest.raises(SystemExit) as info:
        tf.app.run(main=main, argv=argv)
    assert info.value.code == code
    assert seen == {"args": expected_args,
                    "epochs": 4 if "--test_platform_epochs=4" in argv else 1,
                    "name": "y" if "--test_platform_absl_name=y" in argv else "x"}


def test_app_run_rejects_bad_values_of_defined_flags(app_state):
    with pytest.raises(absl_flags.IllegalFlagValueError, match="test_platform_epochs=many"):
        tf.app.run(main=lambda args: 0, argv=["prog", "--test_platform_epochs=many"])


@pytest.mark.parametrize("flag,full", [("--help", False), ("--helpshort", False),
                                       ("-?", False), ("--helpfull", True)])
def test_app_run_help_prints_usage_and_exits_1(flag, full, capsys, monkeypatch, app_state):
    main_module = absl_flags.FLAGS.find_module_defining_flag("test_platform_epochs")
    monkeypatch.setattr(sys, "argv", [main_module])   # the script is named by argv[0]
    called = []
    with pytest.raises(SystemExit) as info:
        tf.app.run(main=called.append, argv=[main_module, flag])
    out = capsys.readouterr().out
    assert info.value.code == 1 and not called
    assert "--test_platform_epochs: epochs for the app.run tests" in out
    assert "--test_platform_absl_name: a flag defined through absl.flags" in out
    assert ("Try --helpfull" in out) != full


ABSL_APP_SCRIPT = """
    \"\"\"Trains a model.\"\"\"
    from absl import app, flags
    import tensorflow as tf

    flags.DEFINE_string("absl_name", "x", "defined with absl.flags")
    tf.compat.v1.flags.DEFINE_integer("steps", 2, "defined with tf.compat.v1.flags")
    FLAGS = flags.FLAGS

    def main(argv):
        print("main", argv[1:], FLAGS.absl_name, FLAGS.steps, tf.flags.FLAGS.absl_name)
        return 3

    if __name__ == "__main__":
        app.run(main)
"""

TF_APP_SCRIPT = """
    from absl import flags as absl_flags
    import tensorflow as tf

    tf.app.flags.DEFINE_integer("steps", 2, "defined with tf.app.flags")
    absl_flags.DEFINE_string("absl_name", "x", "defined with absl.flags")

    def main(argv):
        tf.logging.info("in main")
        print("main", argv[1:], tf.flags.FLAGS.steps, tf.app.flags.FLAGS.absl_name)

    if __name__ == "__main__":
        tf.app.run()
"""


@pytest.mark.parametrize("source,args,code,out,log", [
    (ABSL_APP_SCRIPT, ["--steps=5", "pos", "--absl_name=q"], 3, "main ['pos'] q 5 q\n", ""),
    (ABSL_APP_SCRIPT, ["--help"], 1,
     "Trains a model.\nflags:\n\n{script}:\n"
     "  --absl_name: defined with absl.flags\n    (default: 'x')\n"
     "  --steps: defined with tf.compat.v1.flags\n    (default: '2')\n    (an integer)\n\n"
     "Try --helpfull to get a list of all flags.\n", ""),
    # tf.app.run passes unknown flags on to main; absl's handler logs INFO with file:line
    (TF_APP_SCRIPT, ["--bogus=1", "--steps=4", "pos", "--absl_name=q"], 0,
     "main ['--bogus=1', 'pos'] 4 q\n", " script.py:9] in main\n"),
])
def test_scripts_mixing_absl_and_tf_flags_under_the_runner(tmp_path, source, args, code, out,
                                                           log):
    proc = run_script(tmp_path, source, *args)
    assert (proc.returncode, proc.stdout) == (code, out.format(script=tmp_path / "script.py")), \
        proc.stderr
    assert log in proc.stderr


# ---------------------------------------------------------------- tf.logging


def test_logging_constants_are_tf_values():
    assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR,
            tf.logging.FATAL) == (10, 20, 30, 40, 50)
    assert tf.get_logger() is logging.getLogger("tensorflow")


def test_logging_format_and_default_verbosity_in_a_fresh_process():
    code = textwrap.dedent("""
        import tfcompat as tf
        print(tf.logging.get_verbosity())
        tf.logging.info("hidden %d", 1)
        tf.logging.warning("shown %d", 2)
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("now shown")
        tf.logging.log(tf.logging.ERROR, "at %s", "error")
        tf.logging.fatal("fatal does not exit")
        print("still running")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0"), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["30", "still", "running"]
    assert result.stderr.splitlines() == [
        "WARNING:tensorflow:shown 2", "INFO:tensorflow:now shown",
        "ERROR:tensorflow:at error", "CRITICAL:tensorflow:fatal does not exit"]


@pytest.fixture
def tf_records(caplog):
    previous = tf.logging.get_verbosity()
    caplog.set_level(logging.DEBUG)
    tf.logging.set_verbosity(tf.logging.DEBUG)
    yield lambda: [(r.levelno, r.getMessage()) for r in caplog.records
                   if r.name == "tensorflow"]
    tf.logging.set_verbosity(previous)


def test_verbosity_filters_messages(tf_records):
    tf.logging.set_verbosity(tf.logging.ERROR)
    tf.logging.warn("dropped")
    tf.logging.error("kept %s", "error")
    tf.logging.set_verbosity(tf.logging.DEBUG)
    tf.logging.debug("kept debug")
    tf.logging.vlog(15, "kept vlog")
    tf.logging.log_if(tf.logging.INFO, "not logged", False)
    tf.logging.TaskLevelStatusMessage("status")
    assert tf_records() == [(40, "kept error"), (10, "kept debug"), (15, "kept vlog"),
                            (40, "status")]


def test_records_name_the_line_calling_tf_logging(tf_records, caplog):
    def log_three_ways():
        tf.logging.info("info")
        tf.logging.log_if(tf.logging.WARN, "through log_if and vlog", True)
        tf.get_logger().error("the logger itself")

    log_three_ways()
    first = log_three_ways.__code__.co_firstlineno
    assert [(r.pathname, r.lineno, r.funcName) for r in caplog.records
            if r.name == "tensorflow"] == [(__file__, first + line, "log_three_ways")
                                           for line in (1, 2, 3)]


def test_log_every_n_and_log_first_n_count_per_call_site(tf_records):
    for i in range(10):
        tf.logging.log_every_n(tf.logging.INFO, "every %d", 3, i)
    for i in range(5):
        tf.logging.log_first_n(tf.logging.INFO, "first %d", 2, i)
    tf.logging.log_first_n(tf.logging.INFO, "other site", 1)
    assert [m for _, m in tf_records()] == ["every 0", "every 3", "every 6", "every 9",
                                            "first 0", "first 1", "other site"]


def test_flush_raises_like_tf():
    with pytest.raises(NotImplementedError, match="tf.logging.flush"):
        tf.logging.flush()
