"""A small AutoGraph: Python `if` / `while` whose condition is a tensor become tf.cond /
tf.while_loop when a function is traced into a graph.

The function's source is parsed and each `if`/`while` statement is rewritten into calls of
`operators.if_stmt` / `operators.while_stmt`, which decide at run time: a Python condition
runs the statement as Python would; a symbolic tensor condition builds graph control flow.
Like TF's AutoGraph, the variables a statement assigns become the branch/loop outputs.
`for i in tf.range(n)` becomes a tf.while_loop over the indices when a bound is a
symbolic tensor (other `for` loops stay Python loops, unrolled while tracing).
An `if` whose branches both end in `return value` becomes `return` of a tf.cond of the two
branches (`if c: return a` followed by code ending in `return b` is read as its `else`).
`continue` and `break` first become flag variables guarding the rest of the loop body, as
in TF's AutoGraph, so they work under a tensor `if`. Other statements containing `return`,
`yield` or `global`/`nonlocal` are left as they are (TF converts those too; a tensor
condition there raises TF's "Python bool" error). Functions whose source is unavailable
(lambdas in a REPL, builtins) run unconverted.
"""
import ast
import functools
import inspect
import textwrap
import types

from tfcompat._api import tf_export
from tfcompat.autograph import operators

_PREFIX = "ag__"
_cache = {}


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


class _Transformer(ast.NodeTransformer):
    def __init__(self):
        self.counter = 0

    def _name(self, kind):
        self.counter += 1
        return "%s_%s_%d" % (_PREFIX, kind, self.counter)

    @staticmethod
    def _function(name, params, body, returns):
        body = list(body) or [ast.Pass()]
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
        self.generic_visit(node)
        return node

    def visit_If(self, node):
        self.generic_visit(node)
        if _ends_in_return(node.body) and _ends_in_return(node.orelse) and \
                not _has_jump(node.body[:-1] + node.orelse[:-1], loop_level=False):
            return self._returning_if(node)
        if _has_jump(node.body + node.orelse, loop_level=False):
            return node
        names = _assigned(node.body + node.orelse)
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
        names = _assigned(node.body[:-1] + node.orelse[:-1])
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
        """`for target in <module>.range(...): body` (tf.range) -> `for_range_stmt`, which
        loops in Python unless the range has a symbolic bound (then tf.while_loop). A
        `break` flag (`until_python_break(range, lambda: flag)`) is passed along as the
        position of the flag among the loop variables."""
        self.generic_visit(node)
        iterable, break_flag = node.iter, None
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and \
                iterable.func.attr == "until_python_break":
            iterable, break_flag = iterable.args[0], iterable.args[1].body.id
        if node.orelse or not isinstance(node.target, ast.Name) or \
                not isinstance(iterable, ast.Call) or \
                not isinstance(iterable.func, ast.Attribute) or iterable.func.attr != "range" or \
                any(isinstance(arg, ast.Starred) for arg in iterable.args) or \
                any(keyword.arg is None for keyword in iterable.keywords) or \
                _has_jump(node.body, loop_level=True):
            return node
        names = [node.target.id] + [n for n in _assigned(node.body) if n != node.target.id]
        body_name = self._name("for_body")
        keywords = ast.Dict(keys=[ast.Constant(k.arg) for k in iterable.keywords],
                            values=[k.value for k in iterable.keywords])
        return [
            self._function(body_name, names, node.body, self._tuple(names, ast.Load)),
            self._operator_call("for_range_stmt", [
                iterable.func, ast.List(elts=list(iterable.args), ctx=ast.Load()), keywords,
                ast.Name(id=body_name, ctx=ast.Load()), self._current_values(names),
                ast.Constant(names.index(break_flag) if break_flag else None)], names),
        ]

    def visit_While(self, node):
        self.generic_visit(node)
        if node.orelse or _has_jump(node.body, loop_level=True):
            return node
        names = _assigned(node.body)
        test_name, body_name = self._name("while_test"), self._name("while_body")
        return [
            self._function(test_name, names, [], node.test),
            self._function(body_name, names, node.body, self._tuple(names, ast.Load)),
            self._operator_call("while_stmt", [ast.Name(id=test_name, ctx=ast.Load()),
                                               ast.Name(id=body_name, ctx=ast.Load()),
                                               self._current_values(names)], names),
        ]


def _converted_tree(fn):
    """(the function's definition AST with its statements converted, whether any was), or
    (None, False) when its source cannot be had."""
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
    _JumpRewriter(getattr(node, "id", None) or getattr(node, "arg", None)
                  for node in ast.walk(func_def)).visit(func_def)
    transformer = _Transformer()
    transformer.visit(func_def)
    return func_def, transformer.counter > 0


@tf_export("autograph.to_code")
def to_code(entity, recursive=True, experimental_optional_features=None):
    """`tf.autograph.to_code`: the Python source of `entity` as AutoGraph converts it. Ours
    shows tfcompat's conversion (`ag__.if_stmt` / `if_return` / `while_stmt` calls), not TF's
    generated code; a function with nothing to convert is shown as written."""
    fn = entity.__func__ if isinstance(entity, types.MethodType) else entity
    func_def = _converted_tree(fn)[0] if isinstance(fn, types.FunctionType) else None
    if func_def is None:
        raise ValueError("Unable to locate the source code of %r: to_code needs a function "
                         "defined in a file" % (entity,))
    return ast.unparse(ast.fix_missing_locations(func_def)) + "\n"


def convert(fn):
    """The AutoGraph-converted version of `fn` (or `fn` itself when it cannot be converted)."""
    if isinstance(fn, types.MethodType):
        converted = convert(fn.__func__)
        return types.MethodType(converted, fn.__self__)
    if not isinstance(fn, types.FunctionType):
        return fn
    cached = _cache.get(fn.__code__)
    if cached is not None:
        return _rebind(cached, fn)
    func_def, converted = _converted_tree(fn)
    if func_def is None:
        return fn
    if not converted:
        _cache[fn.__code__] = fn.__code__
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
    _cache[fn.__code__] = code
    return _rebind(code, fn)


def _rebind(code, fn):
    if code is fn.__code__:
        return fn
    globals_ = dict(fn.__globals__) if _PREFIX not in fn.__globals__ else fn.__globals__
    globals_[_PREFIX] = operators
    converted = types.FunctionType(code, globals_, fn.__name__, fn.__defaults__, fn.__closure__)
    converted.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(converted, fn)
    return converted
