"""What the examiner may repeat of an error the student's code raised: its line and its message.

The kernel reports both as text (``bdl.wire.respond``), which is its to choose. So a line is shown only
if it is one of the student's own code cells' lines (``StudentCode``), and a message only if it matches
an entry of ``CATALOGUE``, the common errors students hit. Each entry writes the message anew in the
examiner's words from the parts it parsed: shapes and whole numbers through ``bdl.words``, dtypes,
operations, types and modules from closed lists, other names only if the student's code holds them.
Floats and the values an error quotes are left out: they could be a hidden input's.
"""

import functools
import re
from collections.abc import Callable

from bdl.questions import STAND_IN_ERRORS
from bdl.wire import MAX_TOLD
from bdl.words import MAX_DIGITS, flat, number, shape_text

# The most of a line the examiner shows, of a name it repeats, and of the names or shapes it lists.
MAX_LINE_SHOWN = 100
MAX_NAME = 40
MAX_LISTED = 8
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class StudentCode:
    """The code cells of the student's notebook that the kernel ran (``protocol.Cell.code``): the
    lines an error may be shown in, and the names a message may repeat."""

    def __init__(self, code: str) -> None:
        self.code = code

    @functools.cached_property
    def lines(self) -> frozenset[str]:
        return frozenset(line.strip() for line in self.code.split("\n") if line.strip())

    @functools.cached_property
    def names(self) -> frozenset[str]:
        return frozenset(name for name in IDENTIFIER.findall(self.code) if len(name) <= MAX_NAME)


def your_line(line: object, code: StudentCode) -> str:
    """``line``, the kernel's report of where an error was raised, if it is a line of the student's
    code (cut to ``MAX_LINE_SHOWN`` characters), else "". A line that holds the prefix of a note (a
    likely mistake's, a requirement's) is left out: the feedback takes only the examiner's notes."""
    from bdl.diagnoses import PREFIX as MISTAKE
    from bdl.requirements import PREFIX as REQUIREMENT

    text = line.strip() if type(line) is str and len(line) <= MAX_TOLD else ""
    if not text or text not in code.lines or any(flat(prefix) in flat(text) for prefix in (MISTAKE, REQUIREMENT)):
        return ""
    return text if len(text) <= MAX_LINE_SHOWN else text[: MAX_LINE_SHOWN - 3].rstrip() + "..."


# ---------------------------------------------------------------------------------------------
# The closed lists

# TensorFlow's names of dtypes (its C++ ones too: "float" is float32) as the examiner writes them.
DTYPES = {
    **{name: name for name in ("bfloat16", "float16", "float32", "float64", "complex64", "complex128")},
    **{name: name for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
    **{"bool": "bool", "string": "string", "half": "float16", "float": "float32", "double": "float64"},
}
# The operations TensorFlow names in an error ("[Op:AddV2]").
OPS = frozenset(
    "Abs Add AddN AddV2 ArgMax ArgMin BatchMatMulV2 BatchMatMulV3 BiasAdd BroadcastTo Cast ConcatV2 Conv2D Cumsum "
    "Div DivNoNan Einsum Equal Exp ExpandDims Fill FloorDiv FloorMod GatherV2 Greater GreaterEqual Less LessEqual "
    "Lgamma Log Log1p LogSoftmax MatMul Max Maximum Mean Min Minimum Mul Neg NotEqual OneHot OnesLike Pack Pow Prod "
    "RealDiv Reciprocal Relu Reshape Rsqrt Select SelectV2 Sigmoid Softmax Softplus Sqrt Square SquaredDifference "
    "Squeeze StridedSlice Sub Sum Tanh Tile Transpose Xlogy ZerosLike".split()
)
# The attributes of an operation TensorFlow names when a dtype is not allowed ("Value for attr 'T' ...").
ATTRS = frozenset({"T", "TI", "Tidx", "Tindices", "Tshape", "SrcT", "DstT", "Tlabels", "Tmultiples", "Tpaddings"})
# Python's operators, as its TypeErrors write them.
OPERATORS = frozenset("+ - * / // % ** @ & | ^ << >> < <= > >= += -= *= /= //= %= **= @=".split())
# Types an error may name, by the name Python gives them, as the examiner writes them.
PYTHON_TYPES = (
    "NoneType int float complex bool str bytes list tuple dict set range function method module type generator"
)
TYPES = {
    **{name: name for name in PYTHON_TYPES.split()},
    **{name: name for name in ("builtin_function_or_method", "NotImplementedType", "ellipsis")},
    **{
        f"numpy.{name}": f"numpy.{name}"
        for name in ("ndarray", "float64", "float32", "int64", "int32", "bool", "bool_")
    },
    "tensorflow.python.framework.ops.EagerTensor": "EagerTensor",
    "EagerTensor": "EagerTensor",
    "tensorflow.python.framework.tensor.Tensor": "Tensor",
    "Tensor": "Tensor",
    "SymbolicTensor": "SymbolicTensor",
    "tensorflow.python.framework.ops.SymbolicTensor": "SymbolicTensor",
    "tensorflow.python.ops.resource_variable_ops.ResourceVariable": "ResourceVariable",
    "ResourceVariable": "ResourceVariable",
    "tensorflow.python.framework.tensor_shape.TensorShape": "TensorShape",
    "TensorShape": "TensorShape",
    "tensorflow.python.framework.dtypes.DType": "DType",
    "DType": "DType",
}
# Modules an AttributeError may name ("module 'tensorflow' has no attribute 'log'").
MODULES = frozenset(
    "numpy numpy.random numpy.linalg math tensorflow tensorflow.math tensorflow.nn tensorflow.linalg "
    "tensorflow.random tensorflow.keras tf_keras tensorflow_probability tensorflow_probability.distributions "
    "tensorflow_probability.layers".split()
)
# Names a message may repeat that the student's code need not hold: the libraries' common attributes
# and TensorFlow Probability's parameters.
LIBRARY_NAMES = frozenset(
    "numpy shape dtype ndim size assign as_list log_prob prob sample mean stddev variance entropy "
    "trainable_variables variables losses kernel bias loc scale logits probs concentration rate df low high".split()
)


# ---------------------------------------------------------------------------------------------
# The parts of a message, each as the examiner writes it (None: not one it may repeat)


def _ints(text: str) -> list[int | None]:
    """The dimensions of a shape as TensorFlow ("[2,3]", "[?,3]") or NumPy ("(2, 3)") writes it."""
    dims = [dim.strip() for dim in text.strip("[]()").split(",") if dim.strip()]
    return [int(dim) if re.fullmatch(r"\d+", dim) else None for dim in dims]


def _type(text: str, code: StudentCode) -> str | None:
    return TYPES.get(text) or (text if text in code.names else None)


def _name(text: str, code: StudentCode) -> str | None:
    return text if IDENTIFIER.fullmatch(text) and (text in code.names or text in LIBRARY_NAMES) else None


def _names(text: str, code: StudentCode) -> str | None:
    names = re.findall(r"'([A-Za-z_][A-Za-z0-9_]*)'", text)
    if not names or len(names) > MAX_LISTED or any(_name(name, code) is None for name in names):
        return None
    return ", ".join(f"'{name}'" for name in names)


def _function(text: str, code: StudentCode) -> str | None:
    """A function's qualified name ("f", "Model.call", "<lambda>") as its last part, if the student's code holds it."""
    last = text.rpartition(".")[2]
    return f"{last}()" if last in code.names else None


def _dtypes(text: str, code: StudentCode) -> str | None:
    names = [DTYPES.get(name.strip()) for name in text.split(",")]
    if not names or len(names) > MAX_LISTED or None in names:
        return None
    return ", ".join(name for name in names if name)


def _shapes(text: str, code: StudentCode) -> str | None:
    shapes = re.findall(r"\([^()]*\)", text)
    if not shapes or len(shapes) > MAX_LISTED:
        return None
    return " and ".join(shape_text(_ints(shape)) for shape in shapes)


PART: dict[str, Callable[[str, StudentCode], str | None]] = {
    "shape": lambda text, code: shape_text(_ints(text)),
    "shapes": _shapes,
    "int": lambda text, code: number(int(text)) if len(text) <= MAX_DIGITS + 1 else number(10**MAX_DIGITS),
    "dtype": lambda text, code: DTYPES.get(text.removeprefix("tf.")),
    "dtypes": _dtypes,
    "op": lambda text, code: text if text in OPS else None,
    "attr": lambda text, code: text if text in ATTRS else None,
    "operator": lambda text, code: text if text in OPERATORS else None,
    "type": _type,
    "module": lambda text, code: text if text in MODULES else None,
    "name": _name,
    "names": _names,
    "function": _function,
}

# ---------------------------------------------------------------------------------------------
# The catalogue: (pattern, template). A group's name says its kind (``PART``), less trailing digits.

TF_SHAPE = r"\[(?:(?:-?\d+|\?)(?:,\s*(?:-?\d+|\?))*)?\]"
NP_SHAPE = r"\((?:(?:\d+|None)(?:,\s*(?:\d+|None))*,?)?\)"
ANY_SHAPE = rf"(?:{TF_SHAPE}|{NP_SHAPE})"
INT = r"-?\d+"
DIGIT = r"\d"
WORD = r"\w+"
WORDS = r"\w+(?:, \w+)*"
TF_DTYPE = r"(?:tf\.)?\w+"
NAME = r"[A-Za-z_][A-Za-z0-9_.]{0,199}"
QUALIFIED = r"[\w.<>]{1,200}"
NP_SHAPES = r"(?:\([\d,]*\) ?)+"
OPERATOR = r"\S{1,3}"
COMPARISON = r"\S{1,2}"
UNARY = r"[-+~]"
REST = r"[^\n]{1,400}"


def _g(name: str, pattern: str) -> str:
    return f"(?P<{name}>{pattern})"


CATALOGUE: list[tuple[str, str]] = [
    # TensorFlow: shapes
    (
        rf"Incompatible shapes: {_g('shape1', TF_SHAPE)} vs\. {_g('shape2', TF_SHAPE)}",
        "Incompatible shapes: {shape1} vs. {shape2}",
    ),
    (
        rf"Matrix size-incompatible: In\[0\]: {_g('shape1', TF_SHAPE)}, In\[1\]: {_g('shape2', TF_SHAPE)}",
        "Matrix size-incompatible: In[0]: {shape1}, In[1]: {shape2}",
    ),
    (rf"In\[{_g('int1', DIGIT)}\] ndims must be >= 2", "In[{int1}] ndims must be >= 2"),
    (
        rf"Shapes must be equal rank, but are {_g('int1', INT)} and {_g('int2', INT)}",
        "Shapes must be equal rank, but are {int1} and {int2}",
    ),
    (
        rf"Dimensions must be equal, but are {_g('int1', INT)} and {_g('int2', INT)} for [^\n]{{0,400}}? with input "
        rf"shapes: {_g('shape1', TF_SHAPE)}, {_g('shape2', TF_SHAPE)}",
        "Dimensions must be equal, but are {int1} and {int2}, with input shapes {shape1} and {shape2}",
    ),
    (
        rf"Dimensions must be equal, but are {_g('int1', INT)} and {_g('int2', INT)}",
        "Dimensions must be equal, but are {int1} and {int2}",
    ),
    (
        rf"Shape must be rank {_g('int1', INT)} but is rank {_g('int2', INT)}",
        "Shape must be rank {int1} but is rank {int2}",
    ),
    (
        rf"Shapes {_g('shape1', ANY_SHAPE)} and {_g('shape2', ANY_SHAPE)} are incompatible",
        "Shapes {shape1} and {shape2} are incompatible",
    ),
    (
        rf"Ranks of all input tensors should match: shape\[{_g('int1', INT)}\] = {_g('shape1', TF_SHAPE)} "
        rf"vs\. shape\[{_g('int2', INT)}\] = {_g('shape2', TF_SHAPE)}",
        "Ranks of all input tensors should match: shape[{int1}] = {shape1} vs. shape[{int2}] = {shape2}",
    ),
    (
        rf"Dimension {_g('int1', INT)} in both shapes must be equal: shape\[{_g('int2', INT)}\] = "
        rf"{_g('shape1', TF_SHAPE)} vs\. shape\[{_g('int3', INT)}\] = {_g('shape2', TF_SHAPE)}",
        "Dimension {int1} in both shapes must be equal: shape[{int2}] = {shape1} vs. shape[{int3}] = {shape2}",
    ),
    (
        rf"Shapes of all inputs must match: values\[{_g('int1', INT)}\]\.shape = {_g('shape1', TF_SHAPE)} "
        rf"!= values\[{_g('int2', INT)}\]\.shape = {_g('shape2', TF_SHAPE)}",
        "Shapes of all inputs must match: values[{int1}].shape = {shape1} != values[{int2}].shape = {shape2}",
    ),
    (
        rf"Input to reshape is a tensor with {_g('int1', INT)} values, but the requested shape has {_g('int2', INT)}",
        "Input to reshape is a tensor with {int1} values, but the requested shape has {int2}",
    ),
    (
        rf"Input to reshape is a tensor with {_g('int1', INT)} values, but the requested shape requires a multiple "
        rf"of {_g('int2', INT)}",
        "Input to reshape is a tensor with {int1} values, but the requested shape requires a multiple of {int2}",
    ),
    (
        rf"Can not squeeze dim\[{_g('int1', INT)}\], expected a dimension of 1, got {_g('int2', INT)}",
        "Can not squeeze dim[{int1}], expected a dimension of 1, got {int2}",
    ),
    (
        rf"Expected dimension {_g('int1', INT)} at axis {_g('int2', INT)} of the input shaped "
        rf"{_g('shape1', TF_SHAPE)} but got dimension {_g('int3', INT)}",
        "Expected dimension {int1} at axis {int2} of the input shaped {shape1} but got dimension {int3}",
    ),
    (
        rf"condition {_g('shape1', TF_SHAPE)}, then {_g('shape2', TF_SHAPE)}, and else {_g('shape3', TF_SHAPE)} "
        r"must be broadcastable",
        "condition {shape1}, then {shape2}, and else {shape3} must be broadcastable",
    ),
    (
        rf"Arguments `{_g('name1', NAME)}` and `{_g('name2', NAME)}` must have compatible shapes; "
        rf"\w+\.shape={_g('shape1', NP_SHAPE)}, \w+\.shape={_g('shape2', NP_SHAPE)}",
        "Arguments `{name1}` and `{name2}` must have compatible shapes {shape1} and {shape2}",
    ),
    # TensorFlow: indices and axes (an index's value left out: it may be a hidden input's)
    (
        rf"Index out of range using input dim {_g('int1', INT)}; input has only {_g('int2', INT)} dims",
        "Index out of range using input dim {int1}; input has only {int2} dims",
    ),
    (
        rf"slice index {INT} of dimension {_g('int1', INT)} out of bounds",
        "a slice index of dimension {int1} is out of bounds",
    ),
    (rf"indices\[[\d,]+\] = {INT} is not in \[0, {_g('int1', INT)}\)", "an index is not in [0, {int1})"),
    (
        rf"Received a label value of {INT} which is outside the valid range of \[0, {_g('int1', INT)}\)",
        "Received a label value outside the valid range of [0, {int1})",
    ),
    (
        r"(?i:only integers, slices \(`:`\), ellipsis \(`\.\.\.`\), )(?P<word>tf|numpy)\.newaxis",
        "Only integers, slices (`:`), ellipsis (`...`), {word}.newaxis (`None`) and integer tensors or arrays are "
        "valid indices",
    ),
    (
        rf"Invalid reduction dimension \({_g('int1', INT)} for input with {_g('int2', INT)} dimension",
        "Invalid reduction dimension {int1} for an input with {int2} dimensions",
    ),
    # TensorFlow: dtypes
    (
        rf"cannot compute {_g('op1', WORD)} as input #{_g('int1', INT)}\(zero-based\) was expected to be a "
        rf"{_g('dtype1', WORD)} tensor but is a {_g('dtype2', WORD)} tensor",
        "cannot compute {op1}: input #{int1} (zero-based) was expected to be {dtype1} but is {dtype2}",
    ),
    (
        rf"Tensor conversion requested dtype {_g('dtype1', WORD)} for Tensor with dtype {_g('dtype2', WORD)}",
        "Tensor conversion requested dtype {dtype1} for a Tensor with dtype {dtype2}",
    ),
    (
        rf"`x` and `y` must have the same dtype, got {_g('dtype1', TF_DTYPE)} != {_g('dtype2', TF_DTYPE)}",
        "`x` and `y` must have the same dtype, got {dtype1} != {dtype2}",
    ),
    (
        rf"Value for attr '{_g('attr1', WORD)}' of {_g('dtype1', WORD)} is not in the list of allowed values: "
        rf"{_g('dtypes1', WORDS)}",
        "Value for attr '{attr1}' of {dtype1} is not in the list of allowed values: {dtypes1}",
    ),
    (
        rf"Cannot convert .{{0,{MAX_TOLD}}}? to EagerTensor of dtype {_g('dtype1', WORD)}",
        "Cannot convert a value to EagerTensor of dtype {dtype1}",
    ),
    (
        rf"Attempt to convert a value \(.{{0,{MAX_TOLD}}}?\) with an unsupported type \(<class '{_g('type1', NAME)}'>\) to a Tensor",
        "Attempt to convert a value of type {type1} to a Tensor",
    ),
    (r"Attempt to convert a value \(", "Attempt to convert a value of an unsupported type to a Tensor"),
    (
        rf"Cast {_g('dtype1', WORD)} to {_g('dtype2', WORD)} is not supported",
        "Cast {dtype1} to {dtype2} is not supported",
    ),
    (
        r"Can't convert non-rectangular Python sequence to Tensor",
        "Can't convert non-rectangular Python sequence to Tensor",
    ),
    (
        rf"logits and labels must be broadcastable: logits_size={_g('shape1', TF_SHAPE)} "
        rf"labels_size={_g('shape2', TF_SHAPE)}",
        "logits and labels must be broadcastable: logits_size={shape1} labels_size={shape2}",
    ),
    # TensorFlow: graphs (tf.function)
    (
        r"tf\.function only supports singleton tf\.Variables created on the first call",
        "tf.function only supports singleton tf.Variables created on the first call",
    ),
    (
        r"Using a symbolic `tf\.Tensor` as a Python `bool` is not allowed",
        "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed",
    ),
    (r"Cannot convert a symbolic tf\.Tensor \(", "Cannot convert a symbolic tf.Tensor to a numpy array"),
    (r"Cannot convert a symbolic Keras input", "Cannot convert a symbolic Keras input or output to a numpy array"),
    # Keras
    (
        rf"Input {_g('int1', INT)} of layer \"[^\"]{{0,200}}\" is incompatible with the layer: expected axis "
        rf"{_g('int2', INT)} of input shape to have value {_g('int3', INT)}, but received input with shape "
        rf"{_g('shape1', NP_SHAPE)}",
        "Input {int1} of a layer is incompatible with the layer: expected axis {int2} of input shape to have value "
        "{int3}, but received input with shape {shape1}",
    ),
    (
        rf"Input {_g('int1', INT)} of layer \"[^\"]{{0,200}}\" is incompatible with the layer: expected "
        rf"(?P<word>min_ndim|ndim)={_g('int2', INT)}, found ndim={_g('int3', INT)}",
        "Input {int1} of a layer is incompatible with the layer: expected {word}={int2}, found ndim={int3}",
    ),
    (
        rf"Input {_g('int1', INT)} of layer \"[^\"]{{0,200}}\" is incompatible with the layer: expected "
        rf"shape={_g('shape1', NP_SHAPE)}, found shape={_g('shape2', NP_SHAPE)}",
        "Input {int1} of a layer is incompatible with the layer: expected shape={shape1}, found shape={shape2}",
    ),
    # NumPy
    (  # Keras' and TensorFlow Probability's broadcasting of two shapes
        rf"Incompatible shapes for broadcasting\. [^\n]{{0,200}}?Received: {_g('shape1', ANY_SHAPE)} and "
        rf"{_g('shape2', ANY_SHAPE)}",
        "Incompatible shapes for broadcasting: {shape1} and {shape2}",
    ),
    (
        rf"operands could not be broadcast together with shapes {_g('shapes1', NP_SHAPES)}",
        "operands could not be broadcast together with shapes {shapes1}",
    ),
    (
        rf"matmul: Input operand {_g('int1', INT)} has a mismatch in its core dimension {_g('int2', INT)}, with gufunc "
        rf"signature [^ ]{{0,100}} \(size {_g('int3', INT)} is different from {_g('int4', INT)}\)",
        "matmul: Input operand {int1} has a mismatch in its core dimension {int2} (size {int3} is different from {int4})",
    ),
    (
        rf"shapes {_g('shape1', NP_SHAPE)} and {_g('shape2', NP_SHAPE)} not aligned: {_g('int1', INT)} "
        rf"\(dim {_g('int2', INT)}\) != {_g('int3', INT)} \(dim {_g('int4', INT)}\)",
        "shapes {shape1} and {shape2} not aligned: {int1} (dim {int2}) != {int3} (dim {int4})",
    ),
    (
        rf"cannot reshape array of size {_g('int1', INT)} into shape {_g('shape1', NP_SHAPE)}",
        "cannot reshape array of size {int1} into shape {shape1}",
    ),
    (
        rf"index {INT} is out of bounds for axis {_g('int1', INT)} with size {_g('int2', INT)}",
        "an index is out of bounds for axis {int1} with size {int2}",
    ),
    (
        rf"too many indices for array: array is {_g('int1', INT)}-dimensional, but {_g('int2', INT)} were indexed",
        "too many indices for array: array is {int1}-dimensional, but {int2} were indexed",
    ),
    (
        rf"axis {_g('int1', INT)} is out of bounds for array of dimension {_g('int2', INT)}",
        "axis {int1} is out of bounds for array of dimension {int2}",
    ),
    (
        r"The truth value of an array with more than one element is ambiguous",
        "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
    ),
    (
        r"only (?P<word>0-dimensional|length-1|size-1) arrays can be converted to Python scalars",
        "only {word} arrays can be converted to Python scalars",
    ),
    (
        r"only integer scalar arrays can be converted to a scalar index",
        "only integer scalar arrays can be converted to a scalar index",
    ),
    # Python
    (
        rf"unsupported operand type\(s\) for {_g('operator1', OPERATOR)}: '{_g('type1', NAME)}' and '{_g('type2', NAME)}'",
        "unsupported operand type(s) for {operator1}: '{type1}' and '{type2}'",
    ),
    (
        rf"bad operand type for unary {_g('operator1', UNARY)}: '{_g('type1', NAME)}'",
        "bad operand type for unary {operator1}: '{type1}'",
    ),
    (
        rf"'{_g('operator1', COMPARISON)}' not supported between instances of '{_g('type1', NAME)}' and '{_g('type2', NAME)}'",
        "'{operator1}' not supported between instances of '{type1}' and '{type2}'",
    ),
    (
        rf"can't multiply sequence by non-int of type '{_g('type1', NAME)}'",
        "can't multiply sequence by non-int of type '{type1}'",
    ),
    (
        rf"'{_g('type1', NAME)}' object has no attribute '{_g('name1', NAME)}'",
        "'{type1}' object has no attribute '{name1}'",
    ),
    (
        rf"module '{_g('module1', NAME)}' has no attribute '{_g('name1', NAME)}'",
        "module '{module1}' has no attribute '{name1}'",
    ),
    (
        rf"'{_g('type1', NAME)}' object (?P<word>is not callable|is not subscriptable|is not iterable|does not support "
        r"item assignment)",
        "'{type1}' object {word}",
    ),
    (rf"object of type '{_g('type1', NAME)}' has no len\(\)", "object of type '{type1}' has no len()"),
    (rf"name '{_g('name1', NAME)}' is not defined", "name '{name1}' is not defined"),
    (
        rf"cannot access local variable '{_g('name1', NAME)}' where it is not associated with a value",
        "cannot access local variable '{name1}' where it is not associated with a value",
    ),
    (
        rf"{_g('function1', QUALIFIED)}\(\) takes {_g('int1', INT)} positional arguments? but {_g('int2', INT)} "
        r"(?:was|were) given",
        "{function1} takes {int1} positional arguments but {int2} were given",
    ),
    (
        rf"\(\) takes {_g('int1', INT)} positional arguments? but {_g('int2', INT)} (?:was|were) given",
        "a function takes {int1} positional arguments but {int2} were given",
    ),
    (
        rf"{_g('function1', QUALIFIED)}\(\) missing {_g('int1', INT)} required (?P<word>positional|keyword-only) "
        rf"arguments?: {_g('names1', REST)}",
        "{function1} missing {int1} required {word} arguments: {names1}",
    ),
    (
        rf"\(\) missing {_g('int1', INT)} required (?P<word>positional|keyword-only) arguments?",
        "a function is missing {int1} required {word} arguments",
    ),
    (
        rf"{_g('function1', QUALIFIED)}\(\) got an unexpected keyword argument '{_g('name1', NAME)}'",
        "{function1} got an unexpected keyword argument '{name1}'",
    ),
    (r"\(\) got an unexpected keyword argument", "a function got an unexpected keyword argument"),
    (rf"too many values to unpack \(expected {_g('int1', INT)}\)", "too many values to unpack (expected {int1})"),
    (
        rf"not enough values to unpack \(expected {_g('int1', INT)}, got {_g('int2', INT)}\)",
        "not enough values to unpack (expected {int1}, got {int2})",
    ),
    (r"(?P<word>list|tuple|string) index out of range", "{word} index out of range"),
    (r"(?:float |integer )?division(?: or modulo)? by zero", "division by zero"),
    (r"math domain error", "math domain error"),
    (r"could not convert string to float", "could not convert a string to float"),
    (r"maximum recursion depth exceeded", "maximum recursion depth exceeded"),
    # The tests' own stand-ins (bdl.questions), in their own words.
    *((re.escape(said), said) for said in STAND_IN_ERRORS.values()),
]
COMPILED = [(re.compile(pattern), template) for pattern, template in CATALOGUE]
OP = re.compile(r"\[Op:(\w+)\]")


def _rendered(match: re.Match, template: str, code: StudentCode) -> str | None:
    parts = {}
    for name, text in match.groupdict().items():
        if name == "word":  # one of the alternatives the pattern spells out
            parts[name] = text
            continue
        part = PART[name.rstrip("0123456789")](text, code) if text is not None else None
        if part is None:
            return None
        parts[name] = part
    return template.format(**parts)


def rendered(message: object, code: StudentCode) -> str:
    """``message``, the kernel's report of an error's message, in the examiner's words if an entry of
    ``CATALOGUE`` matches it and can write each of its parts, with TensorFlow's operation when the
    message names one of ``OPS``; else ""."""
    if type(message) is not str:
        return ""
    message = message[:MAX_TOLD]
    for pattern, template in COMPILED:
        match = pattern.search(message)
        said = _rendered(match, template, code) if match else None
        if said is not None:
            op = OP.search(message)
            return said + (f" [Op:{op.group(1)}]" if op and op.group(1) in OPS else "")
    return ""
