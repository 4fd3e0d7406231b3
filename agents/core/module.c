/* The module pacman.agents._core: its functions and types (see core.h for the map of the files). */

#include "core.h"

/* distance_order(distances, cells) -> bytes: for each cell, every cell as a uint16, nearest first (ties by
   cell number), for `nearest`. A counting sort per row: distances are small whole numbers. */
static PyObject *
core_distance_order(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer matrix;
    int cells;
    if (!PyArg_ParseTuple(args, "y*i", &matrix, &cells))
        return NULL;
    PyObject *out = NULL;
    int *count = NULL;
    if (cells < 1 || cells > 65535 || matrix.len != (Py_ssize_t)cells * cells * 4) {
        PyErr_SetString(PyExc_ValueError, "distance_order: expected a cells x cells int32 matrix, cells <= 65535");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cells * cells * 2);
    count = PyMem_Malloc(sizeof(int) * ((size_t)cells + 2));
    if (out == NULL || count == NULL) {
        Py_CLEAR(out);
        PyErr_NoMemory();
        goto done;
    }
    const int32_t *distances = (const int32_t *)matrix.buf;
    uint16_t *order = (uint16_t *)PyBytes_AS_STRING(out);
    for (int r = 0; r < cells; r++) {
        const int32_t *row = distances + (size_t)r * cells;
        uint16_t *mine = order + (size_t)r * cells;
        /* bucket d in 0..cells-1 for reachable cells, bucket `cells` for the rest */
        memset(count, 0, sizeof(int) * ((size_t)cells + 2));
        for (int c = 0; c < cells; c++) {
            int d = row[c] >= 0 && row[c] < cells ? row[c] : cells;
            count[d + 1]++;
        }
        for (int d = 1; d <= cells + 1; d++)
            count[d] += count[d - 1];
        for (int c = 0; c < cells; c++) {
            int d = row[c] >= 0 && row[c] < cells ? row[c] : cells;
            mine[count[d]++] = (uint16_t)c;
        }
    }
done:
    PyMem_Free(count);
    PyBuffer_Release(&matrix);
    return out;
}

static PyMethodDef core_functions[] = {
    {"distance_order", core_distance_order, METH_VARARGS,
     PyDoc_STR("distance_order(distances, cells) -> bytes: each cell's cells by maze distance, as uint16.")},
    {"seeded_stream", core_seeded_stream, METH_VARARGS,
     PyDoc_STR("seeded_stream(words, child) -> numpy's PCG64 of SeedSequence(seed, (child,)) and its next word.")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pacman.agents._core",
    .m_methods = core_functions,
    .m_doc = PyDoc_STR("The compiled search core: rules, built-in evaluations and ghost models, expectiminimax. "
                       "Used through pacman.agents.compiled."),
    .m_size = -1,
};

/* The kernels' names, numbered as core.h numbers them; the build fails if a list and its count disagree. */
static const char *const evaluation_kernel_names[] = {EVAL_KERNEL_NAMES};
static const char *const ghost_kernel_names[] = {GHOST_KERNEL_NAMES};
typedef char evaluation_kernel_names_match[sizeof evaluation_kernel_names / sizeof *evaluation_kernel_names
                                           == EVAL_KERNELS ? 1 : -1];
typedef char ghost_kernel_names_match[sizeof ghost_kernel_names / sizeof *ghost_kernel_names
                                      == GHOST_KERNELS ? 1 : -1];

/* module.NAME = the tuple of the `count` strings `names`; -1 (an exception set) if one is missing or it fails. */
static int
add_names(PyObject *module, const char *name, const char *const *names, int count)
{
    PyObject *tuple = PyTuple_New(count);
    if (tuple == NULL)
        return -1;
    for (int i = 0; i < count; i++) {
        PyObject *item = names[i] == NULL
            ? PyErr_Format(PyExc_SystemError, "pacman.agents._core.%s: number %d of %d has no name", name, i, count)
            : PyUnicode_FromString(names[i]);
        if (item == NULL) {
            Py_DECREF(tuple);
            return -1;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    if (PyModule_AddObject(module, name, tuple) < 0) {
        Py_DECREF(tuple);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC
PyInit__core(void)
{
    if (PyType_Ready(&BoardType) < 0 || PyType_Ready(&SearcherType) < 0)
        return NULL;
    if (PyType_Ready(&GamesType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&core_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&BoardType);
    if (PyModule_AddObject(module, "Board", (PyObject *)&BoardType) < 0) {
        Py_DECREF(&BoardType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(module, "Searcher", (PyObject *)&SearcherType) < 0) {
        Py_DECREF(&SearcherType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&GamesType);
    if (PyModule_AddObject(module, "Games", (PyObject *)&GamesType) < 0) {
        Py_DECREF(&GamesType);
        Py_DECREF(module);
        return NULL;
    }
    /* What this build computes, by the names the Python declarations use (pacman.agents.declarations): the
       registry asks these, so a kernel declared in Python but missing here is refused, never approximated. */
    if (add_names(module, "EVALUATION_KERNELS", evaluation_kernel_names, EVAL_KERNELS) < 0
        || add_names(module, "GHOST_KERNELS", ghost_kernel_names, GHOST_KERNELS) < 0
        /* the arcade kernel's personalities (ghosts.c), by the names of pacman.agents.ghosts.PERSONALITIES */
        || add_names(module, "ARCADE_PERSONALITIES", arcade_aim_names, arcade_aims) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
