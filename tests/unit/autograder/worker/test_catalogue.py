"""The examiner repeats an error of the student's code only as it can vouch for it: a message of the
catalogue written anew from bounded parts, a line only if the student's code holds it.

The messages are as TensorFlow 2.20, NumPy 2 and Python 3.11 write them, most of them raised by the
course's mutants (``tests/course/mutants/``). Pure and fast: no TensorFlow, no kernel."""

import io
import json
import re

import numpy as np
import pytest

from autograder.worker.examiner import catalogue
from autograder.worker.examiner.catalogue import CATALOGUE, StudentCode, rendered, your_line
from autograder.worker.examiner.examine import RelayAsker
from autograder.worker.examiner.protocol import Answer, line
from autograder.worker.examiner.verdict import outputs
from bdl import requirements
from bdl.diagnoses import PREFIX
from bdl.questions import STAND_IN_ERRORS
from bdl.wire import AnswerError, Remote

CODE = StudentCode(
    """
import numpy as np
import tensorflow as tf


def brier_score(probs, labels):
    labels = tf.one_hot(labels, depth=3)
    loss = tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))
    return loss


def log_likelihood(probs):
    return tf.log(probs)


class Ensemble:
    def predict(self, x, members):
        return np.mean([member(x) for member in members], axis=0) * ensemble_size + undefined_here
"""
)
NODE = "{{function_node __wrapped__%s_device_/job:localhost/replica:0/task:0/device:CPU:0}} "

# (the kernel's message, what the examiner says of it): at least one for each entry of the catalogue.
SAID = [
    (
        NODE % "Sub" + "Incompatible shapes: [2,2] vs. [2,3] [Op:Sub] name: ",
        "Incompatible shapes: (2, 2) vs. (2, 3) [Op:Sub]",
    ),
    (
        NODE % "__MklMatMul" + "Matrix size-incompatible: In[0]: [1,4], In[1]: [2,5] [Op:MatMul] name: ",
        "Matrix size-incompatible: In[0]: (1, 4), In[1]: (2, 5) [Op:MatMul]",
    ),
    (NODE % "__MklMatMul" + "In[0] ndims must be >= 2 [Op:MatMul] name: ", "In[0] ndims must be >= 2 [Op:MatMul]"),
    (
        "Shapes must be equal rank, but are 2 and 1 for '{{node concat}}' with input shapes: [2,3], [2].",
        "Shapes must be equal rank, but are 2 and 1",
    ),
    ("Shape must be rank 2 but is rank 1 for '{{node concat}} = ConcatV2[N=2]'", "Shape must be rank 2 but is rank 1"),
    (
        "in user code:\n\n    ValueError: Dimensions must be equal, but are 3 and 2 for '{{node mul}} = "
        "Mul[T=DT_FLOAT](x, y)' with input shapes: [2,3], [2,2].\n",
        "Dimensions must be equal, but are 3 and 2, with input shapes (2, 3) and (2, 2)",
    ),
    ("Dimensions must be equal, but are 3 and 2", "Dimensions must be equal, but are 3 and 2"),
    ("Shapes (2, 3) and [2, 2] are incompatible", "Shapes (2, 3) and (2, 2) are incompatible"),
    (
        NODE % "ConcatV2_N_2" + "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,3] vs. "
        "shape[1] = [2] [Op:ConcatV2] name: concat",
        "Ranks of all input tensors should match: shape[0] = (2, 3) vs. shape[1] = (2,) [Op:ConcatV2]",
    ),
    (
        "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. shape[1] = [3,2] [Op:ConcatV2]",
        "Dimension 1 in both shapes must be equal: shape[0] = (2, 3) vs. shape[1] = (3, 2) [Op:ConcatV2]",
    ),
    (
        "Shapes of all inputs must match: values[0].shape = [2,3] != values[1].shape = [2] [Op:Pack] name: stack",
        "Shapes of all inputs must match: values[0].shape = (2, 3) != values[1].shape = (2,) [Op:Pack]",
    ),
    (
        NODE % "Reshape" + "Input to reshape is a tensor with 2 values, but the requested shape has 3 [Op:Reshape]",
        "Input to reshape is a tensor with 2 values, but the requested shape has 3 [Op:Reshape]",
    ),
    (
        "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4 [Op:Reshape]",
        "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4 [Op:Reshape]",
    ),
    (
        "Can not squeeze dim[0], expected a dimension of 1, got 2 [Op:Squeeze] name: ",
        "Can not squeeze dim[0], expected a dimension of 1, got 2 [Op:Squeeze]",
    ),
    (
        "Expected dimension 3 at axis 0 of the input shaped [2,3] but got dimension 2 [Op:Einsum] name: ",
        "Expected dimension 3 at axis 0 of the input shaped (2, 3) but got dimension 2 [Op:Einsum]",
    ),
    (
        "condition [2], then [3], and else [3] must be broadcastable [Op:SelectV2] name: ",
        "condition (2,), then (3,), and else (3,) must be broadcastable [Op:SelectV2]",
    ),
    (
        "Arguments `loc` and `scale` must have compatible shapes; loc.shape=(2,), scale.shape=(3,).",
        "Arguments `loc` and `scale` must have compatible shapes (2,) and (3,)",
    ),
    (
        "Index out of range using input dim 1; input has only 1 dims [Op:StridedSlice] name: strided_slice/",
        "Index out of range using input dim 1; input has only 1 dims [Op:StridedSlice]",
    ),
    (
        "slice index 5 of dimension 1 out of bounds. [Op:StridedSlice] name: strided_slice/",
        "a slice index of dimension 1 is out of bounds [Op:StridedSlice]",
    ),
    ("indices[0] = 5 is not in [0, 3) [Op:GatherV2]", "an index is not in [0, 3) [Op:GatherV2]"),
    (
        "Received a label value of 5 which is outside the valid range of [0, 3).  Label values: 0 5 "
        "[Op:SparseSoftmaxCrossEntropyWithLogits] name: ",
        "Received a label value outside the valid range of [0, 3)",
    ),
    (
        "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors "
        "are valid indices, got 0.5",
        "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and integer tensors or arrays are valid "
        "indices",
    ),
    (
        "Invalid reduction dimension (2 for input with 2 dimension(s) [Op:Sum] name: ",
        "Invalid reduction dimension 2 for an input with 2 dimensions [Op:Sum]",
    ),
    (
        "cannot compute Sub as input #1(zero-based) was expected to be a float tensor but is a int64 tensor [Op:Sub]",
        "cannot compute Sub: input #1 (zero-based) was expected to be float32 but is int64 [Op:Sub]",
    ),
    (
        "Tensor conversion requested dtype float32 for Tensor with dtype float64: <tf.Tensor: shape=(5, 4), "
        "dtype=float64, numpy=\narray([[0.05225289, 0.3493872 , 0.45817889, 0.14018102]])>",
        "Tensor conversion requested dtype float32 for a Tensor with dtype float64",
    ),
    (
        "`x` and `y` must have the same dtype, got tf.float64 != tf.float32.",
        "`x` and `y` must have the same dtype, got float64 != float32",
    ),
    (
        "Value for attr 'TI' of float is not in the list of allowed values: uint8, int8, int32, int64\n\t; "
        "NodeDef: {{node OneHot}}; Op<name=OneHot> [Op:OneHot]",
        "Value for attr 'TI' of float32 is not in the list of allowed values: uint8, int8, int32, int64 [Op:OneHot]",
    ),
    ("Cannot convert 0.5 to EagerTensor of dtype int32", "Cannot convert a value to EagerTensor of dtype int32"),
    (
        "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.",
        "Attempt to convert a value of type NoneType to a Tensor",
    ),
    (
        "Attempt to convert a value (<__main__.Mine object at 0x7f>) with an unsupported type "
        "(<class '__main__.Mine'>) to a Tensor.",
        "Attempt to convert a value of an unsupported type to a Tensor",
    ),
    ("Cast string to float is not supported [Op:Cast] name: ", "Cast string to float32 is not supported [Op:Cast]"),
    (
        "Can't convert non-rectangular Python sequence to Tensor.",
        "Can't convert non-rectangular Python sequence to Tensor",
    ),
    (
        "logits and labels must be broadcastable: logits_size=[2,2] labels_size=[2,3] "
        "[Op:SoftmaxCrossEntropyWithLogits]",
        "logits and labels must be broadcastable: logits_size=(2, 2) labels_size=(2, 3)",
    ),
    (
        "tf.function only supports singleton tf.Variables created on the first call. Make sure ...",
        "tf.function only supports singleton tf.Variables created on the first call",
    ),
    (
        'in user code:\n\n    File "/tmp/ipykernel_1/1.py", line 4, in gaussian_nll  **\n\n    '
        "OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. ...",
        "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed",
    ),
    (
        "NotImplementedError: Cannot convert a symbolic tf.Tensor (x:0) to a numpy array. This error may ...",
        "Cannot convert a symbolic tf.Tensor to a numpy array",
    ),
    (
        "Cannot convert a symbolic Keras input/output to a numpy array.",
        "Cannot convert a symbolic Keras input or output to a numpy array",
    ),
    (
        'Input 0 of layer "dense" is incompatible with the layer: expected axis -1 of input shape to have value 4, '
        "but received input with shape (2, 5)",
        "Input 0 of a layer is incompatible with the layer: expected axis -1 of input shape to have value 4, but "
        "received input with shape (2, 5)",
    ),
    (
        "Exception encountered when calling layer 'sequential_1' (type Sequential).\n\nInput 0 of layer \"conv2d\" "
        "is incompatible with the layer: expected min_ndim=4, found ndim=2. Full shape received: (8, 8)",
        "Input 0 of a layer is incompatible with the layer: expected min_ndim=4, found ndim=2",
    ),
    (
        'Input 0 of layer "sequential" is incompatible with the layer: expected shape=(None, 4), found shape=(2, 5)',
        "Input 0 of a layer is incompatible with the layer: expected shape=(None, 4), found shape=(2, 5)",
    ),
    (
        "operands could not be broadcast together with shapes (4,) (3,) ",
        "operands could not be broadcast together with shapes (4,) and (3,)",
    ),
    (
        "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) "
        "(size 2 is different from 3)",
        "matmul: Input operand 1 has a mismatch in its core dimension 0 (size 2 is different from 3)",
    ),
    (
        "shapes (2,3) and (2,3) not aligned: 3 (dim 1) != 2 (dim 0)",
        "shapes (2, 3) and (2, 3) not aligned: 3 (dim 1) != 2 (dim 0)",
    ),
    ("cannot reshape array of size 6 into shape (4,2)", "cannot reshape array of size 6 into shape (4, 2)"),
    ("index 5 is out of bounds for axis 1 with size 3", "an index is out of bounds for axis 1 with size 3"),
    (
        "too many indices for array: array is 2-dimensional, but 3 were indexed",
        "too many indices for array: array is 2-dimensional, but 3 were indexed",
    ),
    ("axis 2 is out of bounds for array of dimension 2", "axis 2 is out of bounds for array of dimension 2"),
    (
        "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
        "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
    ),
    (
        "only length-1 arrays can be converted to Python scalars",
        "only length-1 arrays can be converted to Python scalars",
    ),
    (
        "only integer scalar arrays can be converted to a scalar index",
        "only integer scalar arrays can be converted to a scalar index",
    ),
    (
        "unsupported operand type(s) for +: 'NoneType' and 'int'",
        "unsupported operand type(s) for +: 'NoneType' and 'int'",
    ),
    ("bad operand type for unary -: 'list'", "bad operand type for unary -: 'list'"),
    (
        "'<' not supported between instances of 'list' and 'float'",
        "'<' not supported between instances of 'list' and 'float'",
    ),
    ("can't multiply sequence by non-int of type 'float'", "can't multiply sequence by non-int of type 'float'"),
    ("'numpy.ndarray' object has no attribute 'numpy'", "'numpy.ndarray' object has no attribute 'numpy'"),
    (
        "in user code:\n\n    AttributeError: 'SymbolicTensor' object has no attribute 'numpy'\n",
        "'SymbolicTensor' object has no attribute 'numpy'",
    ),
    ("'Ensemble' object has no attribute 'predict'", "'Ensemble' object has no attribute 'predict'"),
    ("module 'tensorflow' has no attribute 'log'", "module 'tensorflow' has no attribute 'log'"),
    (
        "'tensorflow.python.framework.ops.EagerTensor' object does not support item assignment",
        "'EagerTensor' object does not support item assignment",
    ),
    ("object of type 'NoneType' has no len()", "object of type 'NoneType' has no len()"),
    ("name 'ensemble_size' is not defined", "name 'ensemble_size' is not defined"),
    (
        "cannot access local variable 'loss' where it is not associated with a value",
        "cannot access local variable 'loss' where it is not associated with a value",
    ),
    (
        "brier_score() takes 2 positional arguments but 3 were given",
        "brier_score() takes 2 positional arguments but 3 were given",
    ),
    (
        "<lambda>.<locals>.<lambda>() takes 1 positional argument but 2 were given",
        "a function takes 1 positional arguments but 2 were given",
    ),
    (
        "Ensemble.predict() missing 1 required positional argument: 'members'",
        "predict() missing 1 required positional arguments: 'members'",
    ),
    (
        "f() missing 2 required positional arguments: 'b' and 'c'",
        "a function is missing 2 required positional arguments",
    ),
    (
        "brier_score() got an unexpected keyword argument 'labels'",
        "brier_score() got an unexpected keyword argument 'labels'",
    ),
    ("brier_score() got an unexpected keyword argument 'from_logits'", "a function got an unexpected keyword argument"),
    ("too many values to unpack (expected 2)", "too many values to unpack (expected 2)"),
    ("not enough values to unpack (expected 2, got 1)", "not enough values to unpack (expected 2, got 1)"),
    ("list index out of range", "list index out of range"),
    ("float division by zero", "division by zero"),
    ("math domain error", "math domain error"),
    ("could not convert string to float: '0.7310585786300049'", "could not convert a string to float"),
    ("maximum recursion depth exceeded while calling a Python object", "maximum recursion depth exceeded"),
    (  # TensorFlow Probability's OneHotCategorical given class indices
        "Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension pair they are either "
        "equal or one of them is 1. Received: (2, 3) and (2,).",
        "Incompatible shapes for broadcasting: (2, 3) and (2,)",
    ),
    # The tests' stand-ins, in their own words (the student's function called one with what the test did not).
    *((said, said) for said in STAND_IN_ERRORS.values()),
]


@pytest.mark.parametrize("message, said", SAID, ids=[said[:50] for _, said in SAID])
def test_a_catalogued_message_is_written_anew(message, said):
    assert rendered(message, CODE) == said


def _entry(message):
    """The number of the catalogue's entry that writes ``message``."""
    for number, (pattern, template) in enumerate(catalogue.COMPILED):
        match = pattern.search(message)
        if match and catalogue._rendered(match, template, CODE) is not None:
            return number
    return None


def test_every_entry_of_the_catalogue_is_tried():
    entries = {_entry(message) for message, _ in SAID}
    assert entries == set(range(len(CATALOGUE))), sorted(set(range(len(CATALOGUE))) - entries)


# Messages the examiner does not repeat: of no entry, or with a part it cannot vouch for.
UNSAID = [
    "my own words, which no feedback shows",
    "'abc'",  # a KeyError: the key is the message
    "name 'hidden_inputs' is not defined",  # a name the student's code does not hold
    "'Secret' object has no attribute 'shape'",  # a type of no list, nor the student's
    "'NoneType' object has no attribute 'the_hidden_value'",
    "module 'secrets' has no attribute 'log'",
    "unsupported operand type(s) for ?!: 'int' and 'int'",
    "cannot compute Mul as input #1(zero-based) was expected to be a float tensor but is a quaternion tensor",
    "Value for attr 'Secret' of float is not in the list of allowed values: int32",
    "Input to reshape is a tensor with 0.5 values",
    "Expected 0.7310585786300049, got 0.2689414213699951",
    "",
]


@pytest.mark.parametrize("message", UNSAID)
def test_any_other_message_is_not_repeated(message):
    assert rendered(message, CODE) == ""


@pytest.mark.parametrize("message", [None, 7, ["Incompatible shapes: [2] vs. [3]"], {"message": "x"}])
def test_a_message_that_is_not_text_is_not_repeated(message):
    assert rendered(message, CODE) == ""


def test_a_message_shows_no_float_nor_more_than_twelve_digits():
    """A hidden input's values are floats: none is shown; a number the kernel makes up is bounded."""
    long = "1234567890123456789"
    assert rendered(f"Incompatible shapes: [{long}] vs. [3,{long}]", CODE) == (
        "Incompatible shapes: a shape of rank 1 vs. a shape of rank 2"
    )
    said = rendered(f"Input to reshape is a tensor with {long} values, but the requested shape has 3", CODE)
    assert long[:13] not in said and "a number of more than 12 digits" in said
    for message, _ in SAID:
        for value in re.findall(r"\d+\.\d+", message):
            assert value not in rendered(message, CODE)


def test_a_long_message_is_read_only_so_far():
    assert rendered("x" * catalogue.MAX_TOLD + "name 'loss' is not defined", CODE) == ""


def test_the_students_line_is_shown_only_if_the_student_wrote_it():
    assert your_line("    loss = tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))\n", CODE) == (
        "loss = tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))"
    )
    assert your_line("loss = tf.reduce_mean(hidden_labels)", CODE) == ""  # no line of the student's
    assert your_line("loss = tf.reduce_mean(", CODE) == ""  # part of a line is not one
    for told in ("", "   ", None, 7, ["labels = tf.one_hot(labels, depth=3)"]):
        assert your_line(told, CODE) == ""


def test_a_long_line_is_cut_and_a_note_is_never_a_line():
    long = "total = " + " + ".join(f"term_{n}" for n in range(40))
    notes = [
        f"x = '{PREFIX}use the variance'",
        f"x = '{requirements.PREFIX}the mean'",
        "x = 'The  text\tasks: the mean'",
    ]
    code = StudentCode("\n".join([long, *notes]))
    shown = your_line(long, code)
    assert shown.endswith("...") and len(shown) <= catalogue.MAX_LINE_SHOWN and long.startswith(shown[:-3])
    for note in notes:
        assert your_line(note, code) == ""


def _asker(code, told):
    """A RelayAsker whose every question the kernel answers with an error that tells ``told`` (message, line)."""
    message, said_line = told
    reply = Answer(json.dumps({"error": ["builtins.ValueError"], "message": message, "line": said_line}))
    return RelayAsker(io.BytesIO(line(reply) * 8), io.BytesIO(), code)


def test_the_examiners_error_says_the_message_and_the_line_below_its_own_sentence():
    asker = _asker(
        "def f(x):\n    total = x + y\n    return total\n",
        ("Incompatible shapes: [2,3] vs. [2,2] [Op:AddV2]", "    total = x + y"),
    )
    with pytest.raises(AnswerError) as raised:
        asker("bdl.questions:call", (Remote({"name": "f"}), np.zeros((2, 3))), {})
    output = outputs(raised.value, "f(x)", 7)[0]
    assert output["evalue"].split("\n") == [
        "f raised ValueError when the tests called it with a float64 array of shape (2, 3)",
        "the error says: Incompatible shapes: (2, 3) vs. (2, 2) [Op:AddV2]",
        "in your line: total = x + y",
    ]
    assert output["traceback"][-3:] == [
        "the error says: Incompatible shapes: (2, 3) vs. (2, 2) [Op:AddV2]",
        "in your line: total = x + y",
        "ValueError: f raised ValueError when the tests called it with a float64 array of shape (2, 3)",
    ]


def test_an_error_told_of_in_no_words_the_examiner_knows_is_named_by_its_type():
    asker = _asker("def f(x):\n    total = x + y\n", ("the hidden input is 0.25", "total = hidden + 0.25"))
    with pytest.raises(AnswerError) as raised:
        asker("bdl.questions:call", (Remote({"name": "f"}), 1), {})
    assert raised.value.message == "f raised ValueError when the tests called it with 1"
    assert (raised.value.said, raised.value.line) == ("", "")
