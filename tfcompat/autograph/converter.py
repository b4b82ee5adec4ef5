"""A small AutoGraph: Python `if` / `while` whose condition is a tensor become tf.cond /
tf.while_loop when a function is traced into a graph.

The function's source is parsed and each `if`/`while` statement is rewritten into calls of
`operators.if_stmt` / `operators.while_stmt`, which decide at run time: a Python condition
runs the statement as Python would; a symbolic tensor condition builds graph control flow.
Like TF's AutoGraph, the variables a statement assigns become the branch/loop outputs.
`for i in tf.range(n)` (or `range(n)`) becomes a tf.while_loop over the indices when a
bound is a symbolic tensor, `for x in dataset` a tf.while_loop over a tf.data dataset's
elements in a graph; other `for` loops stay Python loops, unrolled while tracing.
An `if` whose branches both end in `return value` becomes `return` of a tf.cond of the two
branches (`if c: return a` followed by code ending in `return b` is read as its `else`).
`continue` and `break` first become flag variables guarding the rest of the loop body, as
in TF's AutoGraph, so they work under a tensor `if`. Other statements containing `return`,
`yield` or `global`/`nonlocal` are left as they are (TF converts those too; a tensor
condition there raises TF's "Python bool" error). Functions whose source is unavailable
(lambdas in a REPL, builtins) run unconverted.
Before that, as TF converts them, `not` / `and` / `or` become `ag__.not_` / `and_` / `or_`
and calls of len/range/int/float/abs become `ag__.builtin_call` (tensor overloads); the
optional features (`Feature`: asserts, print, `==`, list appends, name scopes, automatic
control dependencies) are converted when asked for, and a loop's `set_loop_options(...)`
directive is passed to its tf.while_loop. A variable first assigned inside a tensor loop is
local to each iteration. Where we differ: called functions are not converted recursively,
`[]` literals stay Python lists under LISTS (TF makes them TensorLists), and `l.pop()` is
not converted.
"""
import ast
import enum
import functools
import inspect
import textwrap
import types

from tfcompat._api import tf_export
from tfcompat.autograph import operators

_PREFIX = "ag__"
_cache = {}


@tf_export("autograph.experimental.Feature")
class Feature(enum.Enum):
    """`tf.autograph.experimental.Feature`: AutoGraph's optional conversions, chosen with
    tf.function's `experimental_autograph_options` or to_graph / to_code's
    `experimental_optional_features` (none by default, as in TF).

    ALL: every feature. AUTO_CONTROL_DEPS: a converted function's results depend on the
    side-effect ops it made (tf.function always does this). ASSERT_STATEMENTS: `assert` on a
    tensor becomes tf.debugging.Assert. BUILTIN_FUNCTIONS: `print` of tensors prints their
    values when the graph runs (len/range/int/float/abs of tensors are converted always, as
    in TF). EQUALITY_OPERATORS: `==` / `!=` with a tensor become tf.equal / tf.not_equal.
    LISTS: `l.append(x)` becomes `l = ag__.list_append(l, x)` (TensorArray.write at its
    size, or list.append), and a one-argument `.stack(l)` call stacks a TensorArray.
    NAME_SCOPES: the ops of a converted function are made in a name scope named after it.
    """

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"

    @classmethod
    def all(cls):
        """Every feature (ALL included)."""
        return tuple(cls.__members__.values())

    @classmethod
    def all_but(cls, exclude):
        """Every feature except `exclude` (one feature or a list of them) and ALL."""
        if not isinstance(exclude, (list, tuple, set)):
            exclude = (exclude,)
        return tuple(set(cls.all()) - set(exclude) - {cls.ALL})


def optional_features(features):
    """The features in use, as TF's ConversionOptions reads `optional_features` (None, one
    Feature or a collection): a frozenset of them, every feature when ALL is given."""
    if features is None:
        return frozenset()
    if isinstance(features, Feature):
        features = (features,)
    features = frozenset(features)
    return frozenset(Feature.all()) if Feature.ALL in features else features


class _AssignedNames(ast.NodeVisitor):
    """Names a block of statements binds, not counting nested functions' own locals."""

    def __init__(self):
        self.names = []

    def _add(self, name):
        if name not in self.names and not name.startswith(_PREFIX):
            self.names.append(name)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store):
            self._add(node.id)

    def visit_FunctionDef(self, node):
        self._add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._add(node.name)

    def visit_Lambda(self, node):
        return None

    def visit_ListComp(self, node):
        return None

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp


def _assigned(statements):
    visitor = _AssignedNames()
    for statement in statements:
        visitor.visit(statement)
    return visitor.names


def _has_jump(statements, loop_level):
    """True if the block has return/yield/global/nonlocal, or break/continue of this loop."""
    for statement in statements:
        for node in _walk_same_function(statement):
            if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global,
                                 ast.Nonlocal)):
                return True
            if loop_level and isinstance(node, (ast.Break, ast.Continue)):
                return True
    return False


def _ends_in_return(statements):
    return bool(statements) and isinstance(statements[-1], ast.Return) and \
        statements[-1].value is not None


def _open_tail(node):
    """The last `if` of an if/elif chain whose every branch returns, when it has no `else`."""
    while _ends_in_return(node.body):
        if not node.orelse:
            return node
        if len(node.orelse) != 1 or not isinstance(node.orelse[0], ast.If):
            return None
        node = node.orelse[0]
    return None


def _fold_early_returns(statements):
    """`if c: ...; return a` (elifs likewise) followed by `...; return b` becomes
    `if c: ... else: ...` (the same meaning), so that every branch ends in a return."""
    folded = []
    for index, statement in enumerate(statements):
        folded.append(statement)
        if not isinstance(statement, ast.If):
            continue
        statement.body = _fold_early_returns(statement.body)
        statement.orelse = _fold_early_returns(statement.orelse)
        rest = statements[index + 1:]
        tail = _open_tail(statement)
        if tail is not None and _ends_in_return(rest):
            tail.orelse = _fold_early_returns(rest)
            break
    return folded


def _walk_same_function(node):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                continue
            if isinstance(child, (ast.For, ast.While, ast.AsyncFor)) and current is not node:
                # break/continue inside an inner loop belong to that loop
                stack.extend(n for n in ast.iter_child_nodes(child)
                             if not isinstance(n, (ast.Break, ast.Continue)))
                continue
            stack.append(child)


def _operator(name, *args):
    return ast.Call(func=ast.Attribute(value=ast.Name(id=_PREFIX, ctx=ast.Load()), attr=name,
                                       ctx=ast.Load()), args=list(args), keywords=[])


def _set_flag(flag, value):
    return ast.Assign(targets=[ast.Name(id=flag, ctx=ast.Store())], value=ast.Constant(value))


def _unless(flag, statements):
    """`if ag__.not_(flag): statements`."""
    return ast.If(test=_operator("not_", ast.Name(id=flag, ctx=ast.Load())), body=statements,
                  orelse=[])


def _lambda(body):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                                         kw_defaults=[], defaults=[]), body=body)


def _loop_jumps(node, jump_type):
    """The `jump_type` (Break or Continue) statements of `node` that act on the enclosing
    loop: not those of nested loops' bodies or of nested functions and classes."""
    if isinstance(node, jump_type):
        yield node
        return
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return
    children = node.orelse if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) else \
        ast.iter_child_nodes(node)
    for child in children:
        yield from _loop_jumps(child, jump_type)


def _replace_jumps(statements, jump_type, flag):
    """The block with each `jump_type` statement replaced by `flag = True`, and the
    statements after one that may set the flag guarded by `if not flag:` (TF AutoGraph's
    continue_statements / break_statements rewrite)."""
    rewritten = []
    for index, statement in enumerate(statements):
        if isinstance(statement, jump_type):
            rewritten.append(_set_flag(flag, True))
            return rewritten
        rewritten.append(statement)
        if next(_loop_jumps(statement, jump_type), None) is None:
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(statement, field, None), list):
                setattr(statement, field,
                        _replace_jumps(getattr(statement, field), jump_type, flag))
        for part in getattr(statement, "handlers", []) + getattr(statement, "cases", []):
            part.body = _replace_jumps(part.body, jump_type, flag)
        rest = statements[index + 1:]
        if rest:
            rewritten.append(_unless(flag, _replace_jumps(rest, jump_type, flag)))
        return rewritten
    return rewritten


class _JumpRewriter(ast.NodeTransformer):
    """`continue` and `break` of `for` / `while` loops become flag variables, as TF's
    AutoGraph does before converting control flow, so that one under a tensor `if` (a
    tf.cond whose branches are functions) works. `continue` sets `continue_`, which guards
    the rest of the body; `break` sets `break_`, which guards the rest of the body, is
    and-ed into a `while` condition (and a tf.range loop's), stops a Python `for` loop when
    it is the Python True and guards the rest of an unrolled one when it is a tensor, and
    skips the `else:`."""

    def __init__(self, used_names):
        self.used_names = set(used_names)
        self.function_flags = []

    def _flag(self, base):
        name, suffix = base, 0
        while name in self.used_names:
            suffix += 1
            name = "%s_%d" % (base, suffix)
        self.used_names.add(name)
        self.function_flags.append(name)
        return name

    def visit_FunctionDef(self, node):
        """Also sets the function's flags to False at its start, so that they are defined
        in both branches of a tensor `if` holding the loop (TF knows from liveness analysis
        that they are not needed there)."""
        outer_flags, self.function_flags = self.function_flags, []
        self.generic_visit(node)
        docstring = 1 if ast.get_docstring(node, clean=False) is not None else 0
        node.body[docstring:docstring] = [_set_flag(flag, False) for flag in self.function_flags]
        self.function_flags = outer_flags
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_For(self, node):
        return self._rewrite_loop(node)

    visit_While = visit_For

    def _rewrite_loop(self, node):
        self.generic_visit(node)
        before, after = [], []
        if any(next(_loop_jumps(s, ast.Continue), None) for s in node.body):
            flag = self._flag("continue_")
            node.body = [_set_flag(flag, False)] + _replace_jumps(node.body, ast.Continue, flag)
            before.append(_set_flag(flag, False))
        if any(next(_loop_jumps(s, ast.Break), None) for s in node.body):
            flag = self._flag("break_")
            before.append(_set_flag(flag, False))
            node.body = _replace_jumps(node.body, ast.Break, flag)
            if isinstance(node, ast.While):
                node.test = _operator("and_", _operator("not_", ast.Name(id=flag, ctx=ast.Load())),
                                      _lambda(node.test))
            else:
                node.iter = _operator("until_python_break", node.iter,
                                      _lambda(ast.Name(id=flag, ctx=ast.Load())))
                node.body = [_unless(flag, node.body)]
            if node.orelse:
                after.append(_unless(flag, node.orelse))
                node.orelse = []
        return before + [node] + after


# Builtins whose calls are converted: TF's converted_call gives them its py_builtins
# overloads (print only with BUILTIN_FUNCTIONS); the callee is checked at run time
# (`ag__.builtin_call`), so a local function of the same name is called as it is.
_CONVERTED_BUILTINS = ("abs", "float", "int", "len", "range")


def _attribute_chain(node):
    """True for `name` or `name.attr.attr...` (a target `l.append(x)` can assign back to)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _as_store(node):
    if isinstance(node, ast.Name):
        return ast.Name(id=node.id, ctx=ast.Store())
    return ast.Attribute(value=node.value, attr=node.attr, ctx=ast.Store())


class _FeatureRewriter(ast.NodeTransformer):
    """The statement- and expression-level conversions, made before control flow is:
    builtin calls and `not` / `and` / `or`, and the optional features (TF's asserts,
    lists, call_trees and logical_expressions converters)."""

    def __init__(self, features):
        self.features = features
        self.builtins = _CONVERTED_BUILTINS + (
            ("print",) if Feature.BUILTIN_FUNCTIONS in features else ())

    def visit_Assert(self, node):
        """`assert test, msg` -> `ag__.assert_stmt(test, lambda: msg)` (ASSERT_STATEMENTS)."""
        self.generic_visit(node)
        if Feature.ASSERT_STATEMENTS not in self.features:
            return node
        message = node.msg if node.msg is not None else ast.Constant("Assertion error")
        return ast.Expr(value=_operator("assert_stmt", node.test, _lambda(message)))

    def visit_Expr(self, node):
        """`target.append(x)` -> `target = ag__.list_append(target, x)` (LISTS)."""
        self.generic_visit(node)
        call = node.value
        if Feature.LISTS in self.features and isinstance(call, ast.Call) and \
                isinstance(call.func, ast.Attribute) and call.func.attr == "append" and \
                len(call.args) == 1 and not call.keywords and \
                not isinstance(call.args[0], ast.Starred) and _attribute_chain(call.func.value):
            target = call.func.value
            return ast.Assign(targets=[_as_store(target)],
                              value=_operator("list_append", target, call.args[0]))
        return node

    def visit_Call(self, node):
        """Builtins -> `ag__.builtin_call(builtin, ...)`; with LISTS a one-argument
        `<module>.stack(l)` -> `ag__.list_stack(l, <module>.stack)`."""
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in self.builtins:
            return ast.Call(func=ast.Attribute(value=ast.Name(id=_PREFIX, ctx=ast.Load()),
                                               attr="builtin_call", ctx=ast.Load()),
                            args=[node.func] + node.args, keywords=node.keywords)
        if Feature.LISTS in self.features and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "stack" and len(node.args) == 1 and \
                not isinstance(node.args[0], ast.Starred) and \
                all(keyword.arg == "strict" for keyword in node.keywords):
            return _operator("list_stack", node.args[0], node.func)
        return node

    def visit_UnaryOp(self, node):
        """`not x` -> `ag__.not_(x)` (tf.logical_not of a tensor), as TF converts always."""
        self.generic_visit(node)
        return _operator("not_", node.operand) if isinstance(node.op, ast.Not) else node

    def visit_BoolOp(self, node):
        """`a and b` / `a or b` -> `ag__.and_(a, lambda: b)` / `ag__.or_(a, lambda: b)`
        (tf.logical_and / logical_or of tensors, Python's short circuit otherwise)."""
        self.generic_visit(node)
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[0]
        for value in node.values[1:]:
            result = _operator(name, result, _lambda(value))
        return result

    def visit_Compare(self, node):
        """`a == b` / `a != b` -> `ag__.eq(a, b)` / `ag__.not_eq(a, b)` (EQUALITY_OPERATORS);
        a chain `a == b < c` becomes `ag__.and_(ag__.eq(a, b), lambda: b < c)`, as TF's."""
        self.generic_visit(node)
        if Feature.EQUALITY_OPERATORS not in self.features or \
                not any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            return node
        result, left = None, node.left
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.Eq, ast.NotEq)):
                comparison = _operator("eq" if isinstance(op, ast.Eq) else "not_eq", left, right)
            else:
                comparison = ast.Compare(left=left, ops=[op], comparators=[right])
            result = comparison if result is None else \
                _operator("and_", result, _lambda(comparison))
            left = right
        return result


class _Transformer(ast.NodeTransformer):
    def __init__(self):
        self.counter = 0
        self.declared = [({}, {})]   # per function: its `global` / `nonlocal` names

    def _state_names(self, statements):
        """The names a converted block binds that are its state: not the function's
        `global` / `nonlocal` names, which its branch and body functions declare again."""
        globals_, nonlocals = self.declared[-1]
        return [n for n in _assigned(statements) if n not in globals_ and n not in nonlocals]

    def _name(self, kind):
        self.counter += 1
        return "%s_%s_%d" % (_PREFIX, kind, self.counter)

    def _function(self, name, params, body, returns):
        globals_, nonlocals = self.declared[-1]
        bound = _assigned(body)
        declarations = [kind(names=[n for n in bound if n in declared])
                        for kind, declared in ((ast.Global, globals_), (ast.Nonlocal, nonlocals))
                        if any(n in declared for n in bound)]
        body = declarations + (list(body) or [ast.Pass()])
        if returns is not None:
            body = body + [ast.Return(value=returns)]
        return ast.FunctionDef(
            name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                                          kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=body, decorator_list=[], returns=None, type_params=[])

    @staticmethod
    def _tuple(names, ctx):
        return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx()) for n in names], ctx=ctx())

    @staticmethod
    def _current_values(names):
        return ast.Call(func=ast.Attribute(value=ast.Name(id=_PREFIX, ctx=ast.Load()),
                                           attr="current_values", ctx=ast.Load()),
                        args=[ast.Call(func=ast.Name(id="locals", ctx=ast.Load()), args=[],
                                       keywords=[]),
                              ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())],
                        keywords=[])

    def _operator_call(self, operator, args, names):
        call = ast.Call(func=ast.Attribute(value=ast.Name(id=_PREFIX, ctx=ast.Load()),
                                           attr=operator, ctx=ast.Load()),
                        args=args, keywords=[])
        if not names:
            return ast.Expr(value=call)
        return ast.Assign(targets=[self._tuple(names, ast.Store)], value=call)

    def visit_FunctionDef(self, node):
        node.body = _fold_early_returns(node.body)
        declared = ({}, {})
        for statement in node.body:
            for inner in _walk_same_function(statement):
                if isinstance(inner, ast.Global):
                    declared[0].update(dict.fromkeys(inner.names))
                elif isinstance(inner, ast.Nonlocal):
                    declared[1].update(dict.fromkeys(inner.names))
        self.declared.append(declared)
        self.generic_visit(node)
        self.declared.pop()
        return node

    def visit_If(self, node):
        self.generic_visit(node)
        if _ends_in_return(node.body) and _ends_in_return(node.orelse) and \
                not _has_jump(node.body[:-1] + node.orelse[:-1], loop_level=False):
            return self._returning_if(node)
        if _has_jump(node.body + node.orelse, loop_level=False):
            return node
        names = self._state_names(node.body + node.orelse)
        true_name, false_name = self._name("if_true"), self._name("if_false")
        returns = self._tuple(names, ast.Load)
        return [
            self._function(true_name, names, node.body, returns),
            self._function(false_name, names, node.orelse, returns),
            self._operator_call("if_stmt", [node.test, ast.Name(id=true_name, ctx=ast.Load()),
                                            ast.Name(id=false_name, ctx=ast.Load()),
                                            self._current_values(names)], names),
        ]

    def _returning_if(self, node):
        """`if test: ...; return a else: ...; return b` -> `return if_return(test, ...)`."""
        names = self._state_names(node.body[:-1] + node.orelse[:-1])
        true_name, false_name = self._name("if_true"), self._name("if_false")
        call = ast.Call(func=ast.Attribute(value=ast.Name(id=_PREFIX, ctx=ast.Load()),
                                           attr="if_return", ctx=ast.Load()),
                        args=[node.test, ast.Name(id=true_name, ctx=ast.Load()),
                              ast.Name(id=false_name, ctx=ast.Load()),
                              self._current_values(names)], keywords=[])
        return [self._function(true_name, names, node.body, None),
                self._function(false_name, names, node.orelse, None),
                ast.Return(value=call)]

    def visit_For(self, node):
        """`for target in <module>.range(...): body` (tf.range, or the builtin range made
        `ag__.builtin_call(range, ...)`) -> `for_range_stmt`, which loops in Python unless
        the range has a symbolic bound (then tf.while_loop). A `break` flag
        (`until_python_break(range, lambda: flag)`) is passed along as the position of the
        flag among the loop variables."""
        iterable, break_flag = node.iter, None
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and \
                iterable.func.attr == "until_python_break":
            iterable, break_flag = iterable.args[0], iterable.args[1].body.id
        if node.orelse or _has_jump(node.body, loop_level=True):
            self.generic_visit(node)
            return node
        if break_flag is not None:
            # the body's `if not break_:` guard: the loop operators apply it when needed
            node.body = node.body[0].body
        self.generic_visit(node)
        range_fn, range_args = (iterable.func, list(iterable.args)) \
            if isinstance(iterable, ast.Call) else (None, [])
        if isinstance(range_fn, ast.Attribute) and range_fn.attr == "builtin_call" and \
                range_args and isinstance(range_args[0], ast.Name) and \
                range_args[0].id == "range":
            range_fn, range_args = range_args[0], range_args[1:]
        elif not isinstance(range_fn, ast.Attribute) or range_fn.attr != "range":
            range_fn = None
        if range_fn is None or not isinstance(node.target, ast.Name) or \
                any(isinstance(arg, ast.Starred) for arg in range_args) or \
                any(keyword.arg is None for keyword in iterable.keywords):
            return self._for_stmt(node, iterable, break_flag)
        body, options = _loop_options(node.body)
        names = [node.target.id] + [n for n in self._state_names(body) if n != node.target.id]
        body_name = self._name("for_body")
        keywords = ast.Dict(keys=[ast.Constant(k.arg) for k in iterable.keywords],
                            values=[k.value for k in iterable.keywords])
        return [
            self._function(body_name, names, body, self._tuple(names, ast.Load)),
            self._operator_call("for_range_stmt", [
                range_fn, ast.List(elts=range_args, ctx=ast.Load()), keywords,
                ast.Name(id=body_name, ctx=ast.Load()), self._current_values(names),
                ast.Constant(names.index(break_flag) if break_flag else None), options], names),
        ]

    def _for_stmt(self, node, iterable, break_flag):
        """Any other `for target in iterable: body` -> `for_stmt`, which loops over a
        tf.data dataset in a graph with a tf.while_loop, and over anything else in Python."""
        body, options = _loop_options(node.body)
        item = _PREFIX + "item"
        bind_target = ast.Assign(targets=[node.target], value=ast.Name(id=item, ctx=ast.Load()))
        names = self._state_names([bind_target] + body)
        body_name = self._name("for_body")
        return [
            self._function(body_name, [item] + names, [bind_target] + body,
                           self._tuple(names, ast.Load)),
            self._operator_call("for_stmt", [
                iterable, ast.Name(id=body_name, ctx=ast.Load()), self._current_values(names),
                ast.Constant(names.index(break_flag) if break_flag else None), options], names),
        ]

    def visit_While(self, node):
        self.generic_visit(node)
        if node.orelse or _has_jump(node.body, loop_level=True):
            return node
        body, options = _loop_options(node.body)
        names = self._state_names(body)
        test_name, body_name = self._name("while_test"), self._name("while_body")
        return [
            self._function(test_name, names, [], node.test),
            self._function(body_name, names, body, self._tuple(names, ast.Load)),
            self._operator_call("while_stmt", [ast.Name(id=test_name, ctx=ast.Load()),
                                               ast.Name(id=body_name, ctx=ast.Load()),
                                               self._current_values(names), options], names),
        ]


def _is_loop_options_call(statement):
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    func = statement.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name == "set_loop_options"


def _loop_options(body):
    """(the loop body without its `set_loop_options(...)` directives, a dict display of
    their keyword arguments), as TF's directives converter reads them statically."""
    calls = [statement.value for statement in body if _is_loop_options_call(statement)]
    keywords = [keyword for call in calls for keyword in call.keywords]
    options = ast.Dict(keys=[ast.Constant(k.arg) for k in keywords],
                       values=[k.value for k in keywords])
    return [statement for statement in body if not _is_loop_options_call(statement)], options


@tf_export("autograph.experimental.set_loop_options")
def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None,
                     shape_invariants=None):
    """`tf.autograph.experimental.set_loop_options`: a directive read when the enclosing
    loop is converted to a tf.while_loop (`maximum_iterations`, `shape_invariants` as
    (variable, shape) pairs, `parallel_iterations`, `swap_memory`); calling it does nothing
    (as in TF, where a loop that stays a Python loop ignores it)."""
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants


def _converted_tree(fn, features=frozenset()):
    """(the function's definition AST with its statements converted, whether anything
    was), or (None, False) when its source cannot be had."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None, False
    func_def = tree.body[0] if tree.body else None
    if not isinstance(func_def, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            func_def.name != fn.__name__:
        return None, False
    func_def.decorator_list = []
    written = ast.dump(func_def)
    _FeatureRewriter(features).visit(func_def)
    _JumpRewriter(getattr(node, "id", None) or getattr(node, "arg", None)
                  for node in ast.walk(func_def)).visit(func_def)
    _Transformer().visit(func_def)
    return func_def, ast.dump(func_def) != written


@tf_export("autograph.to_code")
def to_code(entity, recursive=True, experimental_optional_features=None):
    """`tf.autograph.to_code`: the Python source of `entity` as AutoGraph converts it. Ours
    shows tfcompat's conversion (`ag__.if_stmt` / `if_return` / `while_stmt` calls), not TF's
    generated code; a function with nothing to convert is shown as written."""
    fn = entity.__func__ if isinstance(entity, types.MethodType) else entity
    func_def = _converted_tree(fn, optional_features(experimental_optional_features))[0] \
        if isinstance(fn, types.FunctionType) else None
    if func_def is None:
        raise ValueError("Unable to locate the source code of %r: to_code needs a function "
                         "defined in a file" % (entity,))
    return ast.unparse(ast.fix_missing_locations(func_def)) + "\n"


def convert(fn, features=frozenset()):
    """The AutoGraph-converted version of `fn` with the optional `features` (a frozenset
    from `optional_features`), or `fn` itself when it cannot be converted."""
    if isinstance(fn, types.MethodType):
        converted = convert(fn.__func__, features)
        return types.MethodType(converted, fn.__self__)
    if not isinstance(fn, types.FunctionType):
        return fn
    converted = _converted_function(fn, features)
    if features & {Feature.AUTO_CONTROL_DEPS, Feature.NAME_SCOPES}:
        return operators.function_scope(converted, fn.__name__,
                                        Feature.NAME_SCOPES in features,
                                        Feature.AUTO_CONTROL_DEPS in features)
    return converted


def _converted_function(fn, features):
    key = (fn.__code__, features)
    cached = _cache.get(key)
    if cached is not None:
        return _rebind(cached, fn)
    func_def, converted = _converted_tree(fn, features)
    if func_def is None:
        return fn
    if not converted:
        _cache[key] = fn.__code__
        return fn
    # Rebuild the function inside a factory so its free variables stay closures.
    free = list(fn.__code__.co_freevars)
    factory = ast.FunctionDef(
        name="ag__factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in free], kwonlyargs=[],
                           kw_defaults=[], defaults=[]),
        body=[func_def, ast.Return(value=ast.Name(id=func_def.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    filename = "<autograph %s>" % getattr(fn, "__qualname__", fn.__name__)
    namespace = {}
    exec(compile(module, filename, "exec"), namespace)
    inner = namespace["ag__factory"](*[None] * len(free))
    code = inner.__code__
    if tuple(code.co_freevars) != tuple(free):
        return fn
    _cache[key] = code
    return _rebind(code, fn)


def _rebind(code, fn):
    if code is fn.__code__:
        return fn
    globals_ = fn.__globals__     # the module's own: `global x` assignments reach it
    globals_.setdefault(_PREFIX, operators)
    converted = types.FunctionType(code, globals_, fn.__name__, fn.__defaults__, fn.__closure__)
    converted.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(converted, fn)
    return converted
