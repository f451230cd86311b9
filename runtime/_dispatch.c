/* The per-call entry of compiled hlograph functions, in C.
 *
 * ``Dispatching`` is the base type of ``Function``, ``Compiled`` and
 * ``ShardedCompiled`` (compiler/api.py, compiler/sharded.py); calling an
 * instance runs its bound jaxlib C++ dispatcher and converts the results to
 * NumPy unless ``output="device"``. runtime/dispatch.py holds the same logic in
 * Python (the reference, used where this module is not built); both behave
 * alike and tests/runtime/test_dispatch.py runs both.
 *
 * 64-bit types: with jax's default (x64 off) the C++ dispatcher narrows a
 * 64-bit NumPy argument (float64 -> float32) in its call signature and in the
 * transfer. A call whose arguments are all jax arrays, or NumPy arrays of
 * exactly the input's dtype where that dtype is not one jax narrows, has the
 * same signature with x64 on or off, so it goes to the dispatcher as is. Any
 * other call (Python scalars, 64-bit or mismatched NumPy arrays, other types,
 * a wrong argument count) runs with x64 enabled for this thread only, so that
 * the dispatcher sees exact types and hlograph's argument checks report what
 * does not match. Switching jax's thread-local x64 state costs more than the
 * check of the arguments here, hence the two paths.
 *
 * The module takes every jax/NumPy object it uses from ``configure()``; it
 * imports nothing.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dispatch;  /* the C++ dispatcher (xla.pjrt.make_dispatcher) */
    PyObject *direct;    /* tuple: per input, the NumPy dtype that needs no x64 switch, or None */
    int single;          /* one result array (else a tuple) */
} Dispatching;

/* set once by configure() */
static PyObject *swap_x64;       /* prev = swap_x64(True): x64 on for this thread */
static PyObject *set_x64;        /* set_x64(prev): restores it */
static PyObject *to_numpy;       /* np.asarray */
static PyObject *to_native;      /* an array in its dtype's native byte order */
static PyTypeObject *device_array_type;  /* jax's ArrayImpl */
static PyTypeObject *ndarray_type;       /* numpy.ndarray */
static PyObject *s_output, *s_numpy, *s_device, *s_dtype, *s_isnative;

/* The head of NumPy's array object (PyArrayObject_fields): this layout is part
 * of NumPy's ABI and has not changed since NumPy 1.7. configure() checks it on
 * a sample array and, should it ever differ, the dtype is read by attribute. */
typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    PyObject *descr;
} ndarray_head;
static int ndarray_head_ok;

/* the dtype of a NumPy array, as a borrowed reference (NULL: none) */
static PyObject *
array_dtype(PyObject *a)
{
    if (ndarray_head_ok)
        return ((ndarray_head *)a)->descr;
    PyObject *dtype = PyObject_GetAttr(a, s_dtype);
    if (dtype == NULL) {
        PyErr_Clear();
        return NULL;
    }
    Py_DECREF(dtype);  /* the array holds it */
    return dtype;
}

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *swap, *set, *asarray, *native, *dev, *nd, *sample;
    if (!PyArg_ParseTuple(args, "OOOOO!O!O:configure", &swap, &set, &asarray, &native,
                          &PyType_Type, &dev, &PyType_Type, &nd, &sample))
        return NULL;
    if (Py_TYPE(sample) != (PyTypeObject *)nd) {
        PyErr_SetString(PyExc_TypeError, "configure(): the sample must be a numpy.ndarray");
        return NULL;
    }
    PyObject *dtype = PyObject_GetAttr(sample, s_dtype);
    if (dtype == NULL)
        return NULL;
    ndarray_head_ok = ((ndarray_head *)sample)->descr == dtype;
    Py_DECREF(dtype);
    Py_XSETREF(swap_x64, Py_NewRef(swap));
    Py_XSETREF(set_x64, Py_NewRef(set));
    Py_XSETREF(to_numpy, Py_NewRef(asarray));
    Py_XSETREF(to_native, Py_NewRef(native));
    Py_XSETREF(device_array_type, (PyTypeObject *)Py_NewRef(dev));
    Py_XSETREF(ndarray_type, (PyTypeObject *)Py_NewRef(nd));
    Py_RETURN_NONE;
}

/* 1: the arguments have the same dispatcher signature with x64 on and off */
static int
x64_neutral(Dispatching *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (self->direct == NULL || nargs != PyTuple_GET_SIZE(self->direct))
        return 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *a = args[i];
        PyTypeObject *tp = Py_TYPE(a);
        if (tp == device_array_type)
            continue;
        if (tp != ndarray_type)
            return 0;
        PyObject *want = PyTuple_GET_ITEM(self->direct, i);
        if (want == Py_None)
            return 0;
        if (array_dtype(a) != want)
            return 0;
    }
    return 1;
}

/* 1: a NumPy array whose dtype is not in native byte order (jaxlib's
 * dispatcher would take its bytes as native ones); -1: error */
static int
non_native(PyObject *a)
{
    if (!PyObject_TypeCheck(a, ndarray_type))
        return 0;
    PyObject *dtype = array_dtype(a);
    if (dtype == NULL)
        return 0;
    PyObject *isnative = PyObject_GetAttr(dtype, s_isnative);
    if (isnative == NULL)
        return -1;
    int r = isnative == Py_False;
    Py_DECREF(isnative);
    return r;
}

/* the dispatcher's call with x64 on for this thread; NumPy arrays in a
 * non-native byte order are passed in native order (same values) */
static PyObject *
checked_call(PyObject *dispatch, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject **copy = NULL;
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        int r = non_native(args[i]);
        if (r < 0)
            goto done;
        if (r == 0)
            continue;
        if (copy == NULL && (copy = PyMem_Calloc(nargs, sizeof(PyObject *))) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        if ((copy[i] = PyObject_CallOneArg(to_native, args[i])) == NULL)
            goto done;
    }
    if (copy != NULL) {
        for (Py_ssize_t i = 0; i < nargs; i++)
            if (copy[i] == NULL)
                copy[i] = Py_NewRef(args[i]);
        args = copy;
    }
    PyObject *prev = PyObject_CallOneArg(swap_x64, Py_True);
    if (prev == NULL)
        goto done;
    out = PyObject_Vectorcall(dispatch, args, nargs, NULL);
    /* restore even when the call raised, keeping its exception */
    PyObject *exc_type, *exc_value, *exc_tb;
    PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
    PyObject *restored = PyObject_CallOneArg(set_x64, prev);
    Py_DECREF(prev);
    if (restored == NULL) {
        Py_CLEAR(out);
        Py_XDECREF(exc_type);
        Py_XDECREF(exc_value);
        Py_XDECREF(exc_tb);
    }
    else {
        Py_DECREF(restored);
        PyErr_Restore(exc_type, exc_value, exc_tb);
    }
done:
    if (copy != NULL) {
        for (Py_ssize_t i = 0; i < nargs; i++)
            Py_XDECREF(copy[i]);
        PyMem_Free(copy);
    }
    return out;
}

static PyObject *
run(Dispatching *self, PyObject *const *args, size_t nargsf)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (self->dispatch == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "this object has no compiled code bound to it");
        return NULL;
    }
    if (swap_x64 == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure() was not called (import runtime.dispatch)");
        return NULL;
    }
    /* a strong reference for the call: the dispatcher releases the GIL */
    PyObject *dispatch = Py_NewRef(self->dispatch);
    PyObject *out = x64_neutral(self, args, nargs)
        ? PyObject_Vectorcall(dispatch, args, nargsf, NULL)
        : checked_call(dispatch, args, nargs);
    Py_DECREF(dispatch);
    return out;
}

/* -1: error; 0: device arrays; 1: NumPy arrays */
static int
output_kind(PyObject *value)
{
    if (value == s_device)
        return 0;
    if (value == s_numpy)
        return 1;
    if (PyUnicode_Check(value)) {
        if (PyUnicode_Compare(value, s_numpy) == 0)
            return 1;
        if (PyUnicode_Compare(value, s_device) == 0)
            return 0;
    }
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "output must be 'numpy' or 'device', got %R", value);
    return -1;
}

static PyObject *
numpy_results(Dispatching *self, PyObject *out)
{
    if (self->single) {
        PyObject *a = PyObject_CallOneArg(to_numpy, out);
        Py_DECREF(out);
        return a;
    }
    if (!PyTuple_Check(out)) {
        Py_DECREF(out);
        PyErr_SetString(PyExc_TypeError, "the dispatcher did not return a tuple");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(out);
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyObject_CallOneArg(to_numpy, PyTuple_GET_ITEM(out, i));
        if (a == NULL) {
            Py_DECREF(t);
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, a);
    }
    Py_DECREF(out);
    return t;
}

static PyObject *
keyword_call(PyObject *callable, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    /* arguments by input name: the slow path, self._call_with_keywords(args, kwargs) */
    PyObject *pos = PyTuple_New(nargs);
    PyObject *kw = PyDict_New();
    PyObject *r = NULL;
    if (pos == NULL || kw == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(pos, i, Py_NewRef(args[i]));
    Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++)
        if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0)
            goto done;
    PyObject *method = PyObject_GetAttrString(callable, "_call_with_keywords");
    if (method == NULL) {
        /* a bare entry (no graph to name the inputs): keywords other than output are errors */
        PyErr_Clear();
        for (Py_ssize_t k = 0; k < nkw; k++) {
            PyObject *name = PyTuple_GET_ITEM(kwnames, k);
            if (PyUnicode_Compare(name, s_output) != 0) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R",
                             Py_TYPE(callable)->tp_name, name);
                break;
            }
        }
        goto done;
    }
    r = PyObject_CallFunctionObjArgs(method, pos, kw, NULL);
    Py_DECREF(method);
done:
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    return r;
}

static PyObject *
dispatching_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Dispatching *self = (Dispatching *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int numpy = 1;
    if (kwnames != NULL) {
        Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t k = 0; k < nkw; k++) {
            PyObject *name = PyTuple_GET_ITEM(kwnames, k);
            if (name != s_output && PyUnicode_Compare(name, s_output) != 0) {
                if (PyErr_Occurred())
                    return NULL;
                return keyword_call(callable, args, nargs, kwnames);
            }
            numpy = output_kind(args[nargs + k]);
            if (numpy < 0)
                return NULL;
        }
    }
    PyObject *out = run(self, args, kwnames == NULL ? nargsf : (size_t)nargs);
    if (out == NULL || !numpy)
        return out;
    return numpy_results(self, out);
}

static PyObject *
dispatching_call(PyObject *callable, PyObject *args, PyObject *kwargs)
{
    /* the tp_call of subclasses that do not get the vectorcall flag */
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    PyObject *const *items = &PyTuple_GET_ITEM(args, 0);
    if (kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0)
        return dispatching_vectorcall(callable, items, nargs, NULL);
    Py_ssize_t nkw = PyDict_GET_SIZE(kwargs);
    PyObject **stack = PyMem_Malloc((nargs + nkw) * sizeof(PyObject *));
    PyObject *kwnames = PyTuple_New(nkw);
    if (stack == NULL || kwnames == NULL) {
        PyMem_Free(stack);
        Py_XDECREF(kwnames);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        stack[i] = items[i];
    PyObject *key, *value;
    Py_ssize_t pos = 0, k = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
        PyTuple_SET_ITEM(kwnames, k, Py_NewRef(key));
        stack[nargs + k] = value;
        k++;
    }
    PyObject *r = dispatching_vectorcall(callable, stack, nargs, kwnames);
    PyMem_Free(stack);
    Py_DECREF(kwnames);
    return r;
}

static PyObject *
dispatching_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    Dispatching *self = (Dispatching *)type->tp_alloc(type, 0);
    if (self != NULL)
        self->vectorcall = dispatching_vectorcall;
    return (PyObject *)self;
}

static PyObject *
dispatching_bind(Dispatching *self, PyObject *args)
{
    PyObject *dispatch, *direct;
    int single;
    if (!PyArg_ParseTuple(args, "OO!p:_bind", &dispatch, &PyTuple_Type, &direct, &single))
        return NULL;
    Py_XSETREF(self->dispatch, Py_NewRef(dispatch));
    Py_XSETREF(self->direct, Py_NewRef(direct));
    self->single = single;
    Py_RETURN_NONE;
}

static int
dispatching_traverse(Dispatching *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dispatch);
    Py_VISIT(self->direct);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int
dispatching_clear(Dispatching *self)
{
    Py_CLEAR(self->dispatch);
    Py_CLEAR(self->direct);
    return 0;
}

static void
dispatching_dealloc(Dispatching *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    dispatching_clear(self);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static PyMethodDef dispatching_methods[] = {
    {"_bind", (PyCFunction)dispatching_bind, METH_VARARGS,
     "_bind(dispatch, direct, single): the dispatcher to call, per input the NumPy "
     "dtype that needs no x64 switch (or None), and whether there is one result."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef dispatching_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Dispatching, vectorcall), READONLY, NULL},
    {NULL},
};

static PyType_Slot dispatching_slots[] = {
    {Py_tp_new, dispatching_new},
    {Py_tp_call, dispatching_call},
    {Py_tp_traverse, dispatching_traverse},
    {Py_tp_clear, dispatching_clear},
    {Py_tp_dealloc, dispatching_dealloc},
    {Py_tp_methods, dispatching_methods},
    {Py_tp_members, dispatching_members},
    {Py_tp_doc, "Calls a bound jaxlib dispatcher; returns NumPy arrays unless output='device'."},
    {0, NULL},
};

static PyType_Spec dispatching_spec = {
    .name = "hlograph.runtime._dispatch.Dispatching",
    .basicsize = sizeof(Dispatching),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_HAVE_VECTORCALL,
    .slots = dispatching_slots,
};

static PyObject *
enable_vectorcall(PyObject *module, PyObject *cls)
{
    /* Python 3.11 does not pass the vectorcall flag on to subclasses defined in
       Python (3.12 does when they do not define __call__); without it a call
       goes through tp_call, which packs the arguments into a tuple first. */
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "enable_vectorcall() takes a class");
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)cls;
    PyObject *base = PyObject_GetAttrString(module, "Dispatching");
    if (base == NULL)
        return NULL;
    int sub = PyType_IsSubtype(tp, (PyTypeObject *)base);
    Py_DECREF(base);
    if (!sub) {
        PyErr_SetString(PyExc_TypeError, "enable_vectorcall() takes a subclass of Dispatching");
        return NULL;
    }
    if (tp->tp_call == dispatching_call) {
        tp->tp_vectorcall_offset = offsetof(Dispatching, vectorcall);
        tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
        PyType_Modified(tp);
    }
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(swap_x64, set_x64, asarray, to_native, device_array_type, ndarray_type, sample_array)"},
    {"enable_vectorcall", enable_vectorcall, METH_O,
     "enable_vectorcall(cls): calls of cls's instances skip the argument tuple"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_dispatch", "hlograph's per-call entry (see runtime/dispatch.py)", -1,
    module_methods,
};

PyMODINIT_FUNC
PyInit__dispatch(void)
{
    s_output = PyUnicode_InternFromString("output");
    s_numpy = PyUnicode_InternFromString("numpy");
    s_device = PyUnicode_InternFromString("device");
    s_dtype = PyUnicode_InternFromString("dtype");
    s_isnative = PyUnicode_InternFromString("isnative");
    if (!s_output || !s_numpy || !s_device || !s_dtype || !s_isnative)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    PyObject *type = PyType_FromSpec(&dispatching_spec);
    if (type == NULL || PyModule_AddObject(m, "Dispatching", type) < 0) {
        Py_XDECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
