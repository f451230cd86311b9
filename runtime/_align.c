/* A NumPy data allocator (NEP 49) whose buffers are 64-byte aligned.
 *
 * PJRT's CPU client uses a host buffer in place (no copy) only when it is
 * 64-byte aligned; NumPy's default allocator gives malloc's 16-byte alignment,
 * so every large NumPy argument of a compiled function was copied on every
 * call (two float32[4M] inputs: ~32 MB of copies and fresh pages per call).
 * runtime/numpy_alignment.py installs this handler for the importing context.
 *
 * Each buffer is carved from a malloc/calloc block 64 + sizeof(void *) bytes
 * larger; the block's address is stored just before the aligned data, so free
 * and realloc never depend on the size NumPy passes. calloc stays calloc (large
 * zeroed arrays keep their lazily zeroed pages).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>

#define ALIGNMENT 64
#define EXTRA (ALIGNMENT + sizeof(void *))

static void *carve(void *block) {
    if (block == NULL)
        return NULL;
    uintptr_t p = ((uintptr_t)block + sizeof(void *) + ALIGNMENT - 1) & ~(uintptr_t)(ALIGNMENT - 1);
    ((void **)p)[-1] = block;
    return (void *)p;
}

static void *block_of(void *p) { return ((void **)p)[-1]; }

static void *aligned_malloc(void *ctx, size_t size) {
    (void)ctx;
    if (size > SIZE_MAX - EXTRA)
        return NULL;
    return carve(malloc(size + EXTRA));
}

static void *aligned_calloc(void *ctx, size_t nelem, size_t elsize) {
    (void)ctx;
    if (elsize != 0 && nelem > (SIZE_MAX - EXTRA) / elsize)
        return NULL;
    return carve(calloc(1, nelem * elsize + EXTRA));
}

static void *aligned_realloc(void *ctx, void *ptr, size_t size) {
    if (ptr == NULL)
        return aligned_malloc(ctx, size);
    if (size > SIZE_MAX - EXTRA)
        return NULL;
    void *old = block_of(ptr);
    size_t offset = (char *)ptr - (char *)old;
    void *block = realloc(old, size + EXTRA);
    if (block == NULL)
        return NULL; /* the old buffer stays valid, as realloc's */
    /* the aligned address in the new block; the header is written after the data
     * moves, as it may lie where the data was */
    char *p = (char *)(((uintptr_t)block + sizeof(void *) + ALIGNMENT - 1) & ~(uintptr_t)(ALIGNMENT - 1));
    if (p != (char *)block + offset) /* the block moved to a different alignment */
        memmove(p, (char *)block + offset, size);
    ((void **)p)[-1] = block;
    return p;
}

static void aligned_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    (void)size;
    if (ptr != NULL)
        free(block_of(ptr));
}

static PyDataMem_Handler handler = {
    "hlograph_aligned_64",
    1,
    {NULL, aligned_malloc, aligned_calloc, aligned_realloc, aligned_free},
};

static PyObject *previous = NULL; /* the handler install() replaced (in some context) */

/* 1 when this context's handler is the aligned one, 0 when not, -1 on error */
static int current_is_ours(void) {
    PyObject *current = PyDataMem_GetHandler();
    if (current == NULL)
        return -1;
    void *p = PyCapsule_GetPointer(current, "mem_handler");
    if (p == NULL)
        PyErr_Clear();
    Py_DECREF(current);
    return p == (void *)&handler;
}

/* install() -> bool: whether the aligned handler was set now (False: it was already
 * the handler of this context) */
static PyObject *install(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    int ours = current_is_ours();
    if (ours < 0)
        return NULL;
    if (ours)
        Py_RETURN_FALSE;
    PyObject *capsule = PyCapsule_New(&handler, "mem_handler", NULL);
    if (capsule == NULL)
        return NULL;
    PyObject *old = PyDataMem_SetHandler(capsule);
    Py_DECREF(capsule);
    if (old == NULL)
        return NULL;
    Py_XSETREF(previous, old);
    Py_RETURN_TRUE;
}

/* restore() -> bool: puts back the handler install() replaced, where the aligned one
 * is this context's handler (False: it was not) */
static PyObject *restore(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    int ours = current_is_ours();
    if (ours < 0)
        return NULL;
    if (!ours)
        Py_RETURN_FALSE;
    PyObject *replaced = PyDataMem_SetHandler(previous); /* NULL: NumPy's default */
    if (replaced == NULL)
        return NULL;
    Py_DECREF(replaced);
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"install", install, METH_NOARGS,
     "install() -> bool: NumPy arrays created from now on in this context have 64-byte aligned "
     "data (False: they already had)"},
    {"restore", restore, METH_NOARGS,
     "restore() -> bool: NumPy's allocator of this context back to what install() replaced"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_align", NULL, -1, methods};

PyMODINIT_FUNC PyInit__align(void) {
    import_array();
    return PyModule_Create(&module);
}
