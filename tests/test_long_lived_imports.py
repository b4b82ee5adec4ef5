"""`_dependencies.long_lived_imports`: the objects torch's and tfcompat's imports make are
kept out of Python's cyclic GC, which would otherwise walk them all at every full
collection (and at exit)."""
import gc
import os
import subprocess
import sys
import weakref

from tfcompat import _dependencies

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_collection_is_off_inside_and_objects_are_frozen_at_the_outermost_end():
    assert gc.isenabled()
    before = gc.get_freeze_count()
    with _dependencies.long_lived_imports():
        assert not gc.isenabled()
        with _dependencies.long_lived_imports():
            made = [[] for _ in range(1000)]
        assert not gc.isenabled() and gc.get_freeze_count() == before
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + len(made)


class _Node(object):
    pass


def test_garbage_made_before_the_block_is_collected_not_kept():
    node = _Node()
    node.cycle = node
    collected = weakref.ref(node)
    del node
    with _dependencies.long_lived_imports():
        pass
    assert collected() is None


def test_collection_stays_off_where_the_program_turned_it_off():
    gc.disable()
    try:
        with _dependencies.long_lived_imports():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_import_and_first_graph_leave_their_objects_frozen_and_collection_on():
    code = ("import gc\nimport tfcompat as tf\nimported = gc.get_freeze_count()\n"
            "g = tf.Graph()\nwith g.as_default():\n"
            "    x = tf.compat.v1.placeholder(tf.float32, [None, 3])\n"
            "print(imported, gc.get_freeze_count(), gc.isenabled(), x.shape)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": REPO})
    assert proc.returncode == 0, proc.stderr
    imported, after_graph, enabled, shape = proc.stdout.split(" ", 3)
    assert int(imported) > 100000 and int(after_graph) > int(imported)
    assert enabled == "True" and shape.strip() == "(None, 3)"


def test_the_first_graph_itself_is_not_frozen():
    """It is made after the freeze its shape inference loads, so a script that drops it
    (tf.reset_default_graph) gets its memory back."""
    code = ("import gc, weakref\nimport tfcompat as tf\ng = tf.Graph()\n"
            "with g.as_default():\n    tf.compat.v1.placeholder(tf.float32, [None, 3])\n"
            "dropped = weakref.ref(g)\ndel g\ngc.collect()\nprint(dropped() is None)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": REPO})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"
