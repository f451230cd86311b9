/* The small-graph executor: a program of strided array instructions run on the host.
 *
 * A ``Program`` holds the instructions ``runtime/vm.py`` assembles from a graph with
 * static shapes. Every operand is a (slot, byte offset, dtype, byte strides) view:
 * slots are the call's arguments, the constants, the outputs and one scratch arena,
 * so reshapes, transposes, broadcasts and basic slices cost nothing at run time.
 * A call checks its arguments (exact dtype and shape, aligned and C-contiguous;
 * anything else returns NotImplemented and the Python side converts it), allocates
 * the outputs and the arena, runs the instructions and returns the outputs.
 *
 * Instruction layout (int64 words):
 *   opcode, sub, ndim, nops, shape[ndim],
 *   nops x (slot, offset, dtype, strides[ndim]),
 *   nextra, extra[nextra]
 * The iteration space is ``shape``; operand k advances by its strides over it (the
 * linear algebra opcodes, OP_CHOL and OP_TRSM, iterate over all but the last two dims,
 * which are the matrices' own: see run_linalg).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAXD 16
#define MAXOPS 8

enum { OP_EW = 1, OP_FILL = 2, OP_REDUCE = 3, OP_DOT = 4, OP_GATHER = 5, OP_SCATTER = 6, OP_CUM = 7,
       OP_CHOL = 8, OP_TRSM = 9 };
enum { DT_F64 = 0, DT_F32 = 1, DT_I64 = 2, DT_I32 = 3, DT_BOOL = 4 };
enum { CL_F = 0, CL_I = 1 };

/* elementwise functions (sub of OP_EW); keep in step with vm.py's tables */
enum {
    F_COPY = 0, F_NEG, F_ABS, F_SIGN, F_EXP, F_LOG, F_LOG1P, F_EXPM1, F_SQRT, F_SIN, F_COS,
    F_TAN, F_TANH, F_FLOOR, F_CEIL, F_ROUND, F_ISNAN, F_ISFINITE, F_ISINF, F_SQUARE, F_RECIP,
    F_RSQRT, F_SIGMOID, F_ERF, F_ERFC, F_ARCSIN, F_ARCCOS, F_ARCTAN, F_SINH, F_COSH,
    F_ARCSINH, F_ARCCOSH, F_ARCTANH, F_EXP2, F_LOG2, F_LOG10, F_CBRT, F_TRUNC, F_SIGNBIT,
    F_GAMMALN, F_SOFTPLUS, F_LNOT,
    F_ADD = 64, F_SUB, F_MUL, F_DIV, F_POW, F_MAX, F_MIN, F_EQ, F_NE, F_LT, F_LE, F_GT, F_GE,
    F_ATAN2, F_HYPOT, F_COPYSIGN, F_LOGADDEXP, F_FMAX, F_FMIN, F_LAND, F_LOR, F_LXOR,
    F_BAND, F_BOR, F_BXOR,
    F_SELECT = 128
};
enum { R_SUM = 0, R_PROD, R_MAX, R_MIN, R_ALL, R_ANY };
enum { S_SET = 0, S_ADD, S_MUL, S_MIN, S_MAX };

static inline double ldf(const char *p, int dt) {
    switch (dt) {
    case DT_F64: return *(const double *)p;
    case DT_F32: return (double)*(const float *)p;
    case DT_I64: return (double)*(const int64_t *)p;
    case DT_I32: return (double)*(const int32_t *)p;
    default: return (double)(*(const uint8_t *)p != 0);
    }
}

static inline int64_t ldi(const char *p, int dt) {
    switch (dt) {
    case DT_I64: return *(const int64_t *)p;
    case DT_I32: return (int64_t)*(const int32_t *)p;
    case DT_BOOL: return (int64_t)(*(const uint8_t *)p != 0);
    case DT_F64: return (int64_t)*(const double *)p;
    default: return (int64_t)*(const float *)p;
    }
}

static inline void stf(char *p, int dt, double v) {
    switch (dt) {
    case DT_F64: *(double *)p = v; break;
    case DT_F32: *(float *)p = (float)v; break;
    case DT_I64: *(int64_t *)p = (int64_t)v; break;
    case DT_I32: *(int32_t *)p = (int32_t)(int64_t)v; break;
    default: *(uint8_t *)p = (uint8_t)(v != 0); break;
    }
}

static inline void sti(char *p, int dt, int64_t v) {
    switch (dt) {
    case DT_I64: *(int64_t *)p = v; break;
    case DT_I32: *(int32_t *)p = (int32_t)v; break;
    case DT_BOOL: *(uint8_t *)p = (uint8_t)(v != 0); break;
    case DT_F64: *(double *)p = (double)v; break;
    default: *(float *)p = (float)v; break;
    }
}

/* NumPy's npy_logaddexp */
static inline double logaddexp(double x, double y) {
    if (x == y) return x + M_LN2;
    double t = x - y;
    if (t > 0) return x + log1p(exp(-t));
    if (t <= 0) return y + log1p(exp(t));
    return t;
}

static inline double sgn(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? 0.0 : x; }

static inline double fmax_np(double a, double b) { return (a >= b || isnan(a)) ? a : b; }
static inline double fmin_np(double a, double b) { return (a <= b || isnan(a)) ? a : b; }

/* NumPy's power of a scalar exponent (one fixed over the ufunc's inner loop, as a 0-d
   one always is): 2, 0.5 and -1 are x * x, sqrt(x) and 1 / x (so -0.0 ** 0.5 is -0.0, as
   NumPy's), not pow's results (which may differ in the last bit); -1 when pow computes
   it. (An exponent broadcast along some dims only is pow's: NumPy's iterator may or may
   not make it fixed in its inner loop.) */
static inline int pow_as_unary(double b) {
    return b == 2.0 ? F_SQUARE : b == 0.5 ? F_SQRT : b == -1.0 ? F_RECIP : -1;
}

/* NumPy's float64 -> float64 inner loops of the ufuncs some unary functions are, found at
   import (none where a ufunc has no such loop): the executor runs them for those functions */
static PyUFuncGenericFunction np_loop[64];
static void *np_data[64];

static void find_numpy_loops(void) {
    static const struct { int f; const char *name; } table[] = {
        {F_EXP, "exp"}, {F_LOG, "log"}, {F_LOG1P, "log1p"}, {F_EXPM1, "expm1"}, {F_SIN, "sin"},
        {F_COS, "cos"}, {F_TAN, "tan"}, {F_TANH, "tanh"}, {F_ARCSIN, "arcsin"}, {F_ARCCOS, "arccos"},
        {F_ARCTAN, "arctan"}, {F_SINH, "sinh"}, {F_COSH, "cosh"}, {F_ARCSINH, "arcsinh"},
        {F_ARCCOSH, "arccosh"}, {F_ARCTANH, "arctanh"}, {F_EXP2, "exp2"}, {F_LOG2, "log2"},
        {F_LOG10, "log10"}, {F_CBRT, "cbrt"}};
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) { PyErr_Clear(); return; }
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        PyObject *u = PyObject_GetAttrString(np, table[t].name);
        if (!u) { PyErr_Clear(); continue; }
        if (PyObject_TypeCheck(u, &PyUFunc_Type)) {
            PyUFuncObject *uf = (PyUFuncObject *)u;
            if (uf->nin == 1 && uf->nout == 1 && uf->functions)
                for (int i = 0; i < uf->ntypes; i++)
                    if (uf->types[2 * i] == NPY_DOUBLE && uf->types[2 * i + 1] == NPY_DOUBLE && uf->functions[i]) {
                        np_loop[table[t].f] = uf->functions[i];
                        np_data[table[t].f] = uf->data ? uf->data[i] : NULL;
                        break;
                    }
        }
        Py_DECREF(u);
    }
    Py_DECREF(np);
}

static inline double f1(int f, double x) {
    switch (f) {
    case F_COPY: return x;
    case F_NEG: return -x;
    case F_ABS: return fabs(x);
    case F_SIGN: return sgn(x);
    case F_EXP: return exp(x);
    case F_LOG: return log(x);
    case F_LOG1P: return log1p(x);
    case F_EXPM1: return expm1(x);
    case F_SQRT: return sqrt(x);
    case F_SIN: return sin(x);
    case F_COS: return cos(x);
    case F_TAN: return tan(x);
    case F_TANH: return tanh(x);
    case F_FLOOR: return floor(x);
    case F_CEIL: return ceil(x);
    case F_ROUND: return nearbyint(x);
    case F_ISNAN: return isnan(x) ? 1.0 : 0.0;
    case F_ISFINITE: return isfinite(x) ? 1.0 : 0.0;
    case F_ISINF: return isinf(x) ? 1.0 : 0.0;
    case F_SQUARE: return x * x;
    case F_RECIP: return 1.0 / x;
    case F_RSQRT: return 1.0 / sqrt(x);
    case F_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case F_ERF: return erf(x);
    case F_ERFC: return erfc(x);
    case F_ARCSIN: return asin(x);
    case F_ARCCOS: return acos(x);
    case F_ARCTAN: return atan(x);
    case F_SINH: return sinh(x);
    case F_COSH: return cosh(x);
    case F_ARCSINH: return asinh(x);
    case F_ARCCOSH: return acosh(x);
    case F_ARCTANH: return atanh(x);
    case F_EXP2: return exp2(x);
    case F_LOG2: return log2(x);
    case F_LOG10: return log10(x);
    case F_CBRT: return cbrt(x);
    case F_TRUNC: return trunc(x);
    case F_SIGNBIT: return signbit(x) ? 1.0 : 0.0;
    case F_GAMMALN: return lgamma(x);
    case F_SOFTPLUS: return logaddexp(0.0, x);
    case F_LNOT: return x == 0 ? 1.0 : 0.0;
    }
    return NAN;
}

static inline double f2(int f, double a, double b) {
    switch (f) {
    case F_ADD: return a + b;
    case F_SUB: return a - b;
    case F_MUL: return a * b;
    case F_DIV: return a / b;
    case F_POW: return pow(a, b);
    case F_MAX: return fmax_np(a, b);
    case F_MIN: return fmin_np(a, b);
    case F_EQ: return a == b;
    case F_NE: return a != b;
    case F_LT: return a < b;
    case F_LE: return a <= b;
    case F_GT: return a > b;
    case F_GE: return a >= b;
    case F_ATAN2: return atan2(a, b);
    case F_HYPOT: return hypot(a, b);
    case F_COPYSIGN: return copysign(a, b);
    case F_LOGADDEXP: return logaddexp(a, b);
    case F_FMAX: return fmax(a, b);
    case F_FMIN: return fmin(a, b);
    case F_LAND: return (a != 0) && (b != 0);
    case F_LOR: return (a != 0) || (b != 0);
    case F_LXOR: return (a != 0) != (b != 0);
    }
    return NAN;
}

/* integer class: two's complement wrap-around as NumPy's (unsigned arithmetic) */
static inline int64_t i1(int f, int64_t x) {
    switch (f) {
    case F_COPY: return x;
    case F_NEG: return (int64_t)(0 - (uint64_t)x);
    case F_ABS: return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
    case F_SIGN: return (x > 0) - (x < 0);
    case F_SQUARE: return (int64_t)((uint64_t)x * (uint64_t)x);
    case F_LNOT: return x == 0;
    case F_ISNAN: case F_ISINF: case F_SIGNBIT: return f == F_SIGNBIT ? x < 0 : 0;
    case F_ISFINITE: return 1;
    }
    return 0;
}

static inline int64_t i2(int f, int64_t a, int64_t b) {
    switch (f) {
    case F_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
    case F_SUB: return (int64_t)((uint64_t)a - (uint64_t)b);
    case F_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
    case F_MAX: return a > b ? a : b;
    case F_MIN: return a < b ? a : b;
    case F_EQ: return a == b;
    case F_NE: return a != b;
    case F_LT: return a < b;
    case F_LE: return a <= b;
    case F_GT: return a > b;
    case F_GE: return a >= b;
    case F_LAND: return (a != 0) && (b != 0);
    case F_LOR: return (a != 0) || (b != 0);
    case F_LXOR: return (a != 0) != (b != 0);
    case F_BAND: return a & b;
    case F_BOR: return a | b;
    case F_BXOR: return a ^ b;
    }
    return 0;
}

/* float64 loops with the function fixed (one loop per function, so that the compiler
   vectorizes the contiguous and scalar-operand cases) */
#define EW1(F)                                                                                  \
    case F:                                                                                     \
        if (s0 == 8 && s1 == 8) {                                                               \
            double *o_ = (double *)p0;                                                          \
            const double *x_ = (const double *)p1;                                              \
            for (int64_t i = 0; i < inner; i++) o_[i] = f1(F, x_[i]);                           \
        } else                                                                                  \
            for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1)                             \
                *(double *)p0 = f1(F, *(const double *)p1);                                     \
        break;
#define EW2(F)                                                                                  \
    case F:                                                                                     \
        if (s0 == 8 && s1 == 8 && s2 == 8) {                                                    \
            double *o_ = (double *)p0;                                                          \
            const double *a_ = (const double *)p1, *b_ = (const double *)p2;                    \
            for (int64_t i = 0; i < inner; i++) o_[i] = f2(F, a_[i], b_[i]);                    \
        } else if (s0 == 8 && s1 == 8 && s2 == 0) {                                             \
            double *o_ = (double *)p0, b = *(const double *)p2;                                 \
            const double *a_ = (const double *)p1;                                              \
            for (int64_t i = 0; i < inner; i++) o_[i] = f2(F, a_[i], b);                        \
        } else if (s0 == 8 && s1 == 0 && s2 == 8) {                                             \
            double *o_ = (double *)p0, a = *(const double *)p1;                                 \
            const double *b_ = (const double *)p2;                                              \
            for (int64_t i = 0; i < inner; i++) o_[i] = f2(F, a, b_[i]);                        \
        } else                                                                                  \
            for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2)                   \
                *(double *)p0 = f2(F, *(const double *)p1, *(const double *)p2);                \
        break;
/* comparisons of float64 operands into bool */
#define EW2B(F)                                                                                 \
    case F:                                                                                     \
        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2)                       \
            *(uint8_t *)p0 = f2(F, *(const double *)p1, *(const double *)p2) != 0;              \
        break;
#define COMPARE_CASES                                                                           \
    EW2B(F_EQ) EW2B(F_NE) EW2B(F_LT) EW2B(F_LE) EW2B(F_GT) EW2B(F_GE)                         \
    default:                                                                                    \
        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2)                       \
            stf(p0, d0, f2(sub, *(const double *)p1, *(const double *)p2));
#define UNARY_CASES                                                                             \
    EW1(F_COPY) EW1(F_NEG) EW1(F_ABS) EW1(F_SIGN) EW1(F_EXP) EW1(F_LOG) EW1(F_LOG1P) EW1(F_EXPM1) \
    EW1(F_SQRT) EW1(F_SIN) EW1(F_COS) EW1(F_TAN) EW1(F_TANH) EW1(F_FLOOR) EW1(F_CEIL)           \
    EW1(F_ROUND) EW1(F_ISNAN) EW1(F_ISFINITE) EW1(F_ISINF) EW1(F_SQUARE) EW1(F_RECIP)          \
    EW1(F_RSQRT) EW1(F_SIGMOID) EW1(F_ERF) EW1(F_ERFC) EW1(F_ARCSIN) EW1(F_ARCCOS)             \
    EW1(F_ARCTAN) EW1(F_SINH) EW1(F_COSH) EW1(F_ARCSINH) EW1(F_ARCCOSH) EW1(F_ARCTANH)         \
    EW1(F_EXP2) EW1(F_LOG2) EW1(F_LOG10) EW1(F_CBRT) EW1(F_TRUNC) EW1(F_SIGNBIT)               \
    EW1(F_GAMMALN) EW1(F_SOFTPLUS) EW1(F_LNOT)                                                  \
    default:                                                                                    \
        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1)                                 \
            *(double *)p0 = f1(sub, *(const double *)p1);
#define BINARY_CASES                                                                            \
    EW2(F_ADD) EW2(F_SUB) EW2(F_MUL) EW2(F_DIV) EW2(F_POW) EW2(F_MAX) EW2(F_MIN) EW2(F_EQ)    \
    EW2(F_NE) EW2(F_LT) EW2(F_LE) EW2(F_GT) EW2(F_GE) EW2(F_ATAN2) EW2(F_HYPOT)               \
    EW2(F_COPYSIGN) EW2(F_LOGADDEXP) EW2(F_FMAX) EW2(F_FMIN) EW2(F_LAND) EW2(F_LOR) EW2(F_LXOR) \
    default:                                                                                    \
        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2)                       \
            *(double *)p0 = f2(sub, *(const double *)p1, *(const double *)p2);

typedef struct {
    char *p;
    int dt;
    int64_t st[MAXD];
} Operand;

/* advances the counter over all but the last dim; returns 0 when done */
static inline int next_row(int nd, const int64_t *shape, int64_t *idx, int nops, Operand *ops) {
    for (int d = nd - 2; d >= 0; d--) {
        idx[d]++;
        for (int k = 0; k < nops; k++) ops[k].p += ops[k].st[d];
        if (idx[d] < shape[d]) return 1;
        for (int k = 0; k < nops; k++) ops[k].p -= ops[k].st[d] * shape[d];
        idx[d] = 0;
    }
    return 0;
}

static int count_elements(int nd, const int64_t *shape, int64_t *n) {
    int64_t t = 1;
    for (int d = 0; d < nd; d++) t *= shape[d];
    *n = t;
    return t > 0;
}

typedef struct {
    PyObject_HEAD
    int64_t *code;
    Py_ssize_t ncode;
    int n_in, n_const, n_out;
    int *in_type, *in_nd, *out_type, *out_nd;
    npy_intp *in_dims, *out_dims; /* MAXD per entry */
    PyObject *consts;             /* tuple of arrays */
    char **const_ptr;
    int64_t arena;
    /* the arena of the last call, reused by the next (a call holds the GIL throughout, so
       calls never overlap; fresh pages would cost a page fault each) */
    char *arena_buf;
} Program;

static int index_error(int64_t i, int64_t n) {
    PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for axis with size %lld", (long long)i, (long long)n);
    return -1;
}

/* One row of a contraction: out[i] += a[i] * b[i] over the row (ops: out, a, b). */
static inline void dot_row(int cls, int64_t inner, char *p0, int64_t s0, int d0, const char *p1, int64_t s1,
                           int d1, const char *p2, int64_t s2, int d2) {
    if (cls != CL_F) {
        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2)
            sti(p0, d0, (int64_t)((uint64_t)ldi(p0, d0) + (uint64_t)ldi(p1, d1) * (uint64_t)ldi(p2, d2)));
    } else if (d0 == DT_F64 && d1 == DT_F64 && d2 == DT_F64 && s0 == 0) {
        double acc = *(double *)p0;
        for (int64_t i = 0; i < inner; i++, p1 += s1, p2 += s2) acc += *(const double *)p1 * *(const double *)p2;
        *(double *)p0 = acc;
    } else if (d0 == DT_F64 && s0 == 8 && (s1 == 0 || s2 == 0) && d1 <= DT_F32 && d2 <= DT_F32) {
        /* a row of the output plus a scalar times a row (vm.py puts a unit-stride output
           dim innermost): each element's terms added in the same order */
        double *o_ = (double *)p0;
        const char *pv = s1 == 0 ? p2 : p1;
        int64_t sv = s1 == 0 ? s2 : s1;
        int dv = s1 == 0 ? d2 : d1;
        double c = s1 == 0 ? ldf(p1, d1) : ldf(p2, d2);
        if (dv == DT_F64 && sv == 8) {
            const double *v_ = (const double *)pv;
            for (int64_t i = 0; i < inner; i++) o_[i] += c * v_[i];
        } else if (dv == DT_F32 && sv == 4) {
            const float *v_ = (const float *)pv;
            for (int64_t i = 0; i < inner; i++) o_[i] += c * (double)v_[i];
        } else
            for (int64_t i = 0; i < inner; i++, pv += sv) o_[i] += c * ldf(pv, dv);
    } else
        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2)
            stf(p0, d0, ldf(p0, d0) + ldf(p1, d1) * ldf(p2, d2));
}

/* OP_DOT -- ops: out (0 strides on the contracted dims, filled first), a, b: the rows of
   the last dim, looped here over the last two (a contraction's rows are short) */
static void run_dot(int cls, int nd, const int64_t *shape, Operand *ops) {
    if (nd == 0) {
        dot_row(cls, 1, ops[0].p, 0, ops[0].dt, ops[1].p, 0, ops[1].dt, ops[2].p, 0, ops[2].dt);
        return;
    }
    int last = nd - 1, nb = nd - 2;
    int64_t inner = shape[last], m = nd > 1 ? shape[nd - 2] : 1;
    int64_t t0 = nd > 1 ? ops[0].st[nd - 2] : 0, t1 = nd > 1 ? ops[1].st[nd - 2] : 0,
            t2 = nd > 1 ? ops[2].st[nd - 2] : 0;
    int64_t bidx[MAXD];
    memset(bidx, 0, sizeof(bidx));
    int64_t s0 = ops[0].st[last], s1 = ops[1].st[last], s2 = ops[2].st[last];
    /* out's row fixed over dim nd - 2 (a contracted dim), plus scalar-times-row terms:
       four at a time with the row in registers (each element's terms in the same order) */
    int blocked = cls == CL_F && nd > 1 && t0 == 0 && s0 == 8 && ops[0].dt == DT_F64 && ops[1].dt == DT_F64
                  && ops[2].dt == DT_F64 && ((s1 == 0 && s2 == 8) || (s2 == 0 && s1 == 8));
    /* out fixed over the last dim (the contracted one), not over dim nd - 2: four dot
       products at a time, into four elements (each its terms in order) */
    int dotted = !blocked && cls == CL_F && nd > 1 && s0 == 0 && t0 != 0 && ops[0].dt == DT_F64
                 && ops[1].dt == DT_F64 && ops[2].dt == DT_F64;
    for (;;) {
        char *p0 = ops[0].p, *p1 = ops[1].p, *p2 = ops[2].p;
        int64_t r = 0;
        if (blocked) {
            double *o_ = (double *)p0;
            const char *pc = s1 == 0 ? p1 : p2, *pv = s1 == 0 ? p2 : p1;
            int64_t tc = s1 == 0 ? t1 : t2, tv = s1 == 0 ? t2 : t1;
            for (; r + 4 <= m; r += 4) {
                double c0 = *(const double *)(pc + r * tc), c1 = *(const double *)(pc + (r + 1) * tc),
                       c2 = *(const double *)(pc + (r + 2) * tc), c3 = *(const double *)(pc + (r + 3) * tc);
                const double *v0 = (const double *)(pv + r * tv), *v1 = (const double *)(pv + (r + 1) * tv),
                             *v2 = (const double *)(pv + (r + 2) * tv), *v3 = (const double *)(pv + (r + 3) * tv);
                for (int64_t i = 0; i < inner; i++) {
                    double t = o_[i];
                    t += c0 * v0[i];
                    t += c1 * v1[i];
                    t += c2 * v2[i];
                    t += c3 * v3[i];
                    o_[i] = t;
                }
            }
            p1 += r * t1, p2 += r * t2;
        } else if (dotted) {
            for (; r + 4 <= m; r += 4, p0 += 4 * t0, p1 += 4 * t1, p2 += 4 * t2) {
                double *o0 = (double *)p0, *o1 = (double *)(p0 + t0), *o2 = (double *)(p0 + 2 * t0),
                       *o3 = (double *)(p0 + 3 * t0);
                double a0 = *o0, a1 = *o1, a2 = *o2, a3 = *o3;
                const char *x = p1, *y = p2;
                for (int64_t i = 0; i < inner; i++, x += s1, y += s2) {
                    a0 += *(const double *)x * *(const double *)y;
                    a1 += *(const double *)(x + t1) * *(const double *)(y + t2);
                    a2 += *(const double *)(x + 2 * t1) * *(const double *)(y + 2 * t2);
                    a3 += *(const double *)(x + 3 * t1) * *(const double *)(y + 3 * t2);
                }
                *o0 = a0, *o1 = a1, *o2 = a2, *o3 = a3;
            }
        }
        for (; r < m; r++, p0 += t0, p1 += t1, p2 += t2)
            dot_row(cls, inner, p0, ops[0].st[last], ops[0].dt, p1, ops[1].st[last], ops[1].dt, p2,
                    ops[2].st[last], ops[2].dt);
        int d = nb - 1;
        for (; d >= 0; d--) {
            bidx[d]++;
            for (int k = 0; k < 3; k++) ops[k].p += ops[k].st[d];
            if (bidx[d] < shape[d]) break;
            for (int k = 0; k < 3; k++) ops[k].p -= ops[k].st[d] * shape[d];
            bidx[d] = 0;
        }
        if (d < 0) return;
    }
}

/* --- linear algebra: one float64 matrix at a time (vm.py casts to and from float64) ---- */
#define AT(p, s0, s1, i, j) (*(double *)((p) + (i) * (s0) + (j) * (s1)))

/* numpy.linalg.LinAlgError(message), as perform raises it */
static int linalg_error(const char *fmt, long long i) {
    PyObject *mod = PyImport_ImportModule("numpy.linalg");
    PyObject *cls = mod ? PyObject_GetAttrString(mod, "LinAlgError") : NULL;
    Py_XDECREF(mod);
    if (!cls) return -1;
    PyErr_Format(cls, fmt, i);
    Py_DECREF(cls);
    return -1;
}

/* The lower Cholesky factor of the n x n matrix a (its lower triangle read) into w, column
   by column (w's upper triangle zeroed), as LAPACK's unblocked potf2 computes it. A pivot
   that is not positive raises LinAlgError as numpy.linalg.cholesky (``raise``), or makes
   the whole factor NaN (its upper triangle 0) as compiled code's; a NaN pivot passes
   (OpenBLAS's test is ``ajj <= 0``) and gives NaNs, as NumPy's and compiled code's. */
static int cholesky_one(const char *a, int64_t as0, int64_t as1, char *w, int64_t ws0, int64_t ws1, int64_t n,
                        int raise) {
    for (int64_t j = 0; j < n; j++) {
        double s = AT(a, as0, as1, j, j);
        for (int64_t k = 0; k < j; k++) {
            double l = AT(w, ws0, ws1, j, k);
            s -= l * l;
        }
        if (s <= 0) {
            if (raise) return linalg_error("Matrix is not positive definite", 0);
            for (int64_t i = 0; i < n; i++)
                for (int64_t k = 0; k < n; k++) AT(w, ws0, ws1, i, k) = k <= i ? NAN : 0.0;
            return 0;
        }
        double d = sqrt(s);
        AT(w, ws0, ws1, j, j) = d;
        for (int64_t i = 0; i < j; i++) AT(w, ws0, ws1, i, j) = 0.0;
        int64_t i = j + 1;
        for (; i + 4 <= n; i += 4) { /* four rows at a time (each its terms in order) */
            double t0 = AT(a, as0, as1, i, j), t1 = AT(a, as0, as1, i + 1, j), t2 = AT(a, as0, as1, i + 2, j),
                   t3 = AT(a, as0, as1, i + 3, j);
            for (int64_t k = 0; k < j; k++) {
                double l = AT(w, ws0, ws1, j, k);
                t0 -= AT(w, ws0, ws1, i, k) * l;
                t1 -= AT(w, ws0, ws1, i + 1, k) * l;
                t2 -= AT(w, ws0, ws1, i + 2, k) * l;
                t3 -= AT(w, ws0, ws1, i + 3, k) * l;
            }
            AT(w, ws0, ws1, i, j) = t0 / d;
            AT(w, ws0, ws1, i + 1, j) = t1 / d;
            AT(w, ws0, ws1, i + 2, j) = t2 / d;
            AT(w, ws0, ws1, i + 3, j) = t3 / d;
        }
        for (; i < n; i++) {
            double t = AT(a, as0, as1, i, j);
            for (int64_t k = 0; k < j; k++) t -= AT(w, ws0, ws1, i, k) * AT(w, ws0, ws1, j, k);
            AT(w, ws0, ws1, i, j) = t / d;
        }
    }
    return 0;
}

/* x with m x = b for the n x n triangular m (only its lower (upper) triangle read; a unit
   diagonal when ``unit``) and b n x k, into w (n x k), by forward (back) substitution
   over all k columns at once: x[i] = (b[i] - sum_j m[i, j] x[j]) / m[i, i], the terms
   subtracted in the order LAPACK's trsm does. ``check``: a zero on m's diagonal raises
   LinAlgError as scipy.linalg.solve_triangular (trtrs) does, before anything is solved;
   else it divides by zero (infinities and NaNs, as compiled code's and potrs'). */
static int trsm_one(const char *m, int64_t ms0, int64_t ms1, const char *b, int64_t bs0, int64_t bs1,
                    char *w, int64_t ws0, int64_t ws1, int64_t n, int64_t k, int lower, int unit, int check) {
    if (check && !unit)
        for (int64_t i = 0; i < n; i++)
            if (AT(m, ms0, ms1, i, i) == 0)
                return linalg_error("singular matrix: resolution failed at diagonal %lld", (long long)i);
    for (int64_t r = 0; r < n; r++) {
        int64_t i = lower ? r : n - 1 - r;
        for (int64_t c = 0; c < k; c++) AT(w, ws0, ws1, i, c) = AT(b, bs0, bs1, i, c);
        /* the solved rows, nearest the diagonal last (lower: 0, 1, ..., i - 1) */
        int64_t q = 0;
        if (ws1 == 8) { /* four rows at a time, row i in registers (the same order of terms) */
            double *wi = (double *)(w + i * ws0);
            for (; q + 4 <= r; q += 4) {
                int64_t j0 = lower ? q : n - 1 - q, j1 = lower ? q + 1 : n - 2 - q, j2 = lower ? q + 2 : n - 3 - q,
                        j3 = lower ? q + 3 : n - 4 - q;
                double m0 = AT(m, ms0, ms1, i, j0), m1 = AT(m, ms0, ms1, i, j1), m2 = AT(m, ms0, ms1, i, j2),
                       m3 = AT(m, ms0, ms1, i, j3);
                const double *w0 = (const double *)(w + j0 * ws0), *w1 = (const double *)(w + j1 * ws0),
                             *w2 = (const double *)(w + j2 * ws0), *w3 = (const double *)(w + j3 * ws0);
                for (int64_t c = 0; c < k; c++) {
                    double t = wi[c];
                    t -= m0 * w0[c];
                    t -= m1 * w1[c];
                    t -= m2 * w2[c];
                    t -= m3 * w3[c];
                    wi[c] = t;
                }
            }
        }
        for (; q < r; q++) {
            int64_t j = lower ? q : n - 1 - q;
            double mij = AT(m, ms0, ms1, i, j);
            for (int64_t c = 0; c < k; c++) AT(w, ws0, ws1, i, c) -= mij * AT(w, ws0, ws1, j, c);
        }
        if (!unit) {
            double d = AT(m, ms0, ms1, i, i);
            for (int64_t c = 0; c < k; c++) AT(w, ws0, ws1, i, c) /= d;
        }
    }
    return 0;
}

/* OP_CHOL -- ops: w (the factor), a; shape: batch..., n, n; sub: 1 raise LinAlgError
   where a matrix is not positive definite (else its factor is NaN).
   OP_TRSM -- ops: w (the solution), m, b; shape: batch..., n, k; sub: 1 lower, 2 unit
   diagonal, 4 check the diagonal. The last two strides of each operand are its own
   matrix's (row, column) strides; the batch dims are iterated here. */
static int run_linalg(int op, int sub, int nd, const int64_t *shape, int nops, Operand *ops) {
    int nb = nd - 2;
    int64_t bidx[MAXD];
    memset(bidx, 0, sizeof(bidx));
    int64_t r = nd - 2, c = nd - 1;
    for (;;) {
        int rc = op == OP_CHOL
            ? cholesky_one(ops[1].p, ops[1].st[r], ops[1].st[c], ops[0].p, ops[0].st[r], ops[0].st[c], shape[r],
                           sub & 1)
            : trsm_one(ops[1].p, ops[1].st[r], ops[1].st[c], ops[2].p, ops[2].st[r], ops[2].st[c], ops[0].p,
                       ops[0].st[r], ops[0].st[c], shape[r], shape[c], sub & 1, (sub & 2) != 0, (sub & 4) != 0);
        if (rc < 0) return -1;
        int d = nb - 1;
        for (; d >= 0; d--) {
            bidx[d]++;
            for (int k = 0; k < nops; k++) ops[k].p += ops[k].st[d];
            if (bidx[d] < shape[d]) break;
            for (int k = 0; k < nops; k++) ops[k].p -= ops[k].st[d] * shape[d];
            bidx[d] = 0;
        }
        if (d < 0) return 0;
    }
}

static int run_code(Program *self, char **slots) {
    const int64_t *c = self->code, *end = self->code + self->ncode;
    Operand ops[MAXOPS];
    int64_t idx[MAXD];
    while (c < end) {
        int op = (int)c[0], sub = (int)c[1], nd = (int)c[2], nops = (int)c[3];
        const int64_t *shape = c + 4;
        c += 4 + nd;
        for (int k = 0; k < nops; k++) {
            ops[k].p = slots[c[0]] + c[1];
            ops[k].dt = (int)c[2];
            for (int d = 0; d < nd; d++) ops[k].st[d] = c[3 + d];
            c += 3 + nd;
        }
        int nextra = (int)c[0];
        const int64_t *extra = c + 1;
        c += 1 + nextra;
        int64_t total;
        if (!count_elements(nd, shape, &total)) continue;
        if (op == OP_DOT) {
            run_dot(nextra > 0 ? (int)extra[0] : CL_F, nd, shape, ops);
            continue;
        }
        if (op == OP_CHOL || op == OP_TRSM) {
            if (nd < 2 || nops < (op == OP_CHOL ? 2 : 3)) {
                PyErr_SetString(PyExc_RuntimeError, "hlograph vm: a malformed linear algebra instruction");
                return -1;
            }
            if (run_linalg(op, sub, nd, shape, nops, ops) < 0) return -1;
            continue;
        }
        memset(idx, 0, sizeof(idx));
        int64_t inner = nd ? shape[nd - 1] : 1;
        int last = nd ? nd - 1 : 0;
        Operand *o = ops;
        int cls = nextra > 0 ? (int)extra[0] : CL_F;
        int pow_scalar = -1; /* x ** c of a scalar exponent (0 strides): as a unary function */
        if (op == OP_EW && sub == F_POW && cls == CL_F && nops == 3) {
            int scalar = 1;
            for (int d = 0; d < nd; d++) scalar &= ops[2].st[d] == 0;
            if (scalar) pow_scalar = pow_as_unary(ldf(ops[2].p, ops[2].dt));
        }
        do {
            char *p0 = ops[0].p, *p1 = nops > 1 ? ops[1].p : NULL, *p2 = nops > 2 ? ops[2].p : NULL,
                 *p3 = nops > 3 ? ops[3].p : NULL;
            int64_t s0 = nd ? ops[0].st[last] : 0, s1 = nd && nops > 1 ? ops[1].st[last] : 0,
                    s2 = nd && nops > 2 ? ops[2].st[last] : 0, s3 = nd && nops > 3 ? ops[3].st[last] : 0;
            int d0 = o[0].dt, d1 = nops > 1 ? o[1].dt : 0, d2 = nops > 2 ? o[2].dt : 0, d3 = nops > 3 ? o[3].dt : 0;
            switch (op) {
            case OP_EW:
                if (sub == F_SELECT) {
                    if (d0 == DT_F64 && d1 == DT_BOOL && d2 == DT_F64 && d3 == DT_F64)
                        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2, p3 += s3)
                            *(double *)p0 = *(const uint8_t *)p1 ? *(const double *)p2 : *(const double *)p3;
                    else if (cls == CL_F)
                        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2, p3 += s3)
                            stf(p0, d0, ldf(p1, d1) != 0 ? ldf(p2, d2) : ldf(p3, d3));
                    else
                        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2, p3 += s3)
                            sti(p0, d0, ldf(p1, d1) != 0 ? ldi(p2, d2) : ldi(p3, d3));
                } else if (sub >= F_ADD) {
                    int pf = pow_scalar;
                    if (pf >= 0) {
                        if (pf == F_SQUARE && d0 == DT_F64 && d1 == DT_F64 && s0 == 8 && s1 == 8) {
                            double *o_ = (double *)p0;
                            const double *x_ = (const double *)p1;
                            for (int64_t i = 0; i < inner; i++) o_[i] = x_[i] * x_[i];
                        } else
                            for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1) stf(p0, d0, f1(pf, ldf(p1, d1)));
                    } else if (cls == CL_F) {
                        if (d0 == DT_F64 && d1 == DT_F64 && d2 == DT_F64) {
                            switch (sub) { BINARY_CASES }
                        } else if (d0 == DT_BOOL && d1 == DT_F64 && d2 == DT_F64) {
                            switch (sub) { COMPARE_CASES }
                        } else
                            for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2)
                                stf(p0, d0, f2(sub, ldf(p1, d1), ldf(p2, d2)));
                    } else
                        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, p2 += s2)
                            sti(p0, d0, i2(sub, ldi(p1, d1), ldi(p2, d2)));
                } else if (sub == F_COPY && d0 == DT_F32 && d1 == DT_I64) {
                    /* one rounding, as NumPy's cast (through a double rounds twice past 2**53) */
                    for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1)
                        *(float *)p0 = (float)*(const int64_t *)p1;
                } else if (sub == F_COPY && d0 == DT_I32 && (d1 == DT_F64 || d1 == DT_F32)) {
                    /* C's conversion, as NumPy's cast (NaN and values out of range: the
                       platform's result; through an int64 would keep its low 32 bits) */
                    for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1)
                        *(int32_t *)p0 = (int32_t)ldf(p1, d1);
                } else {
                    if (cls == CL_F) {
                        if (d0 == DT_F64 && d1 == DT_F64 && sub < 64 && np_loop[sub]) {
                            /* NumPy's own float64 loop (its SIMD exp, log, ...): perform's numbers */
                            char *args[2] = {p1, p0};
                            npy_intp n = inner, steps[2] = {s1, s0};
                            np_loop[sub](args, &n, steps, np_data[sub]);
                        } else if (d0 == DT_F64 && d1 == DT_F64) {
                            switch (sub) { UNARY_CASES }
                        } else
                            for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1)
                                stf(p0, d0, f1(sub, ldf(p1, d1)));
                    } else
                        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1)
                            sti(p0, d0, i1(sub, ldi(p1, d1)));
                }
                break;
            case OP_FILL: {
                /* extra: class, value (a double's bits for CL_F) */
                if (cls == CL_F) {
                    double v;
                    memcpy(&v, &extra[1], sizeof v);
                    for (int64_t i = 0; i < inner; i++, p0 += s0) stf(p0, d0, v);
                } else
                    for (int64_t i = 0; i < inner; i++, p0 += s0) sti(p0, d0, extra[1]);
                break;
            }
            case OP_REDUCE:
                /* ops: out (0 strides on reduced dims, filled first), in */
                if (cls == CL_F && sub == R_SUM && d0 == DT_F64 && d1 == DT_F64 && s0 == 0) {
                    double acc = *(double *)p0;
                    if (s1 == 8) {
                        const double *x_ = (const double *)p1;
                        for (int64_t i = 0; i < inner; i++) acc += x_[i];
                    } else
                        for (int64_t i = 0; i < inner; i++, p1 += s1) acc += *(const double *)p1;
                    *(double *)p0 = acc;
                } else if (cls == CL_F && d0 == DT_F64 && d1 == DT_F64 && (sub == R_SUM || sub == R_MAX || sub == R_MIN)) {
                    if (sub == R_SUM)
                        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1) *(double *)p0 += *(const double *)p1;
                    else if (sub == R_MAX)
                        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1)
                            *(double *)p0 = fmax_np(*(double *)p0, *(const double *)p1);
                    else
                        for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1)
                            *(double *)p0 = fmin_np(*(double *)p0, *(const double *)p1);
                } else if (cls == CL_F) {
                    for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1) {
                        double a = ldf(p0, d0), x = ldf(p1, d1);
                        switch (sub) {
                        case R_SUM: a += x; break;
                        case R_PROD: a *= x; break;
                        case R_MAX: a = fmax_np(a, x); break;
                        case R_MIN: a = fmin_np(a, x); break;
                        case R_ALL: a = (a != 0) && (x != 0); break;
                        default: a = (a != 0) || (x != 0); break;
                        }
                        stf(p0, d0, a);
                    }
                } else {
                    for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1) {
                        int64_t a = ldi(p0, d0), x = ldi(p1, d1);
                        switch (sub) {
                        case R_SUM: a = (int64_t)((uint64_t)a + (uint64_t)x); break;
                        case R_PROD: a = (int64_t)((uint64_t)a * (uint64_t)x); break;
                        case R_MAX: a = a > x ? a : x; break;
                        case R_MIN: a = a < x ? a : x; break;
                        case R_ALL: a = (a != 0) && (x != 0); break;
                        default: a = (a != 0) || (x != 0); break;
                        }
                        sti(p0, d0, a);
                    }
                }
                break;
            case OP_GATHER:
            case OP_SCATTER: {
                /* gather -- ops: out, x (0 strides on the index dims), k index arrays; an
                   element of out is x at the sum of (index q) * (stride q).
                   scatter -- ops: out (0 strides on the index dims), v, k index arrays; v's
                   element is combined (sub) into out at that offset.
                   extra: class, k, then k x (axis stride, axis length) */
                int k = (int)extra[1];
                int64_t isz = d0 == DT_F64 || d0 == DT_I64 ? 8 : d0 == DT_BOOL ? 1 : 4;
                if (k == 1 && ops[2].dt == DT_I64 && isz == 8 &&
                    (op == OP_GATHER || (sub == S_ADD && d0 == DT_F64 && d1 == DT_F64))) {
                    /* the common case (x[idx], and its gradient), without per-element dispatch */
                    const char *ip = ops[2].p;
                    int64_t ist = nd ? ops[2].st[last] : 0, ast = extra[2], alen = extra[3];
                    for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1, ip += ist) {
                        int64_t j0 = *(const int64_t *)ip, j = j0 < 0 ? j0 + alen : j0;
                        if (j < 0 || j >= alen) return index_error(j0, alen);
                        if (op == OP_GATHER)
                            *(int64_t *)p0 = *(const int64_t *)(p1 + j * ast);
                        else
                            *(double *)(p0 + j * ast) += *(const double *)p1;
                    }
                    break;
                }
                for (int64_t i = 0; i < inner; i++, p0 += s0, p1 += s1) {
                    int64_t off = 0;
                    for (int q = 0; q < k; q++) {
                        const Operand *iq = &ops[2 + q];
                        int64_t j0 = ldi(iq->p + i * (nd ? iq->st[last] : 0), iq->dt), j = j0;
                        int64_t alen = extra[3 + 2 * q];
                        if (j < 0) j += alen;
                        if (j < 0 || j >= alen) return index_error(j0, alen);
                        off += j * extra[2 + 2 * q];
                    }
                    if (op == OP_GATHER) {
                        memcpy(p0, p1 + off, (size_t)isz);
                        continue;
                    }
                    char *t = p0 + off;
                    if (cls == CL_F) {
                        double a = ldf(t, d0), v = ldf(p1, d1);
                        switch (sub) {
                        case S_SET: a = v; break;
                        case S_ADD: a += v; break;
                        case S_MUL: a *= v; break;
                        case S_MIN: a = fmin_np(a, v); break;
                        default: a = fmax_np(a, v); break;
                        }
                        stf(t, d0, a);
                    } else {
                        int64_t a = ldi(t, d0), v = ldi(p1, d1);
                        switch (sub) {
                        case S_SET: a = v; break;
                        case S_ADD: a = (int64_t)((uint64_t)a + (uint64_t)v); break;
                        case S_MUL: a = (int64_t)((uint64_t)a * (uint64_t)v); break;
                        case S_MIN: a = a < v ? a : v; break;
                        default: a = a > v ? a : v; break;
                        }
                        sti(t, d0, a);
                    }
                }
                break;
            }
            case OP_CUM: {
                /* ops: out, x; the inner dim is the accumulated one (never merged with others);
                   sub: 0 add, 1 multiply. From the first element, as NumPy's accumulate (a
                   sum from 0 would turn a leading -0.0 into 0.0) */
                if (cls == CL_F) {
                    double acc = ldf(p1, d1);
                    stf(p0, d0, acc);
                    p0 += s0, p1 += s1;
                    for (int64_t i = 1; i < inner; i++, p0 += s0, p1 += s1) {
                        double x = ldf(p1, d1);
                        acc = sub ? acc * x : acc + x;
                        /* NumPy accumulates float32 in float32 (the double result of two
                           floats rounds to the float32 one: no double rounding issue) */
                        if (d0 == DT_F32) acc = (double)(float)acc;
                        stf(p0, d0, acc);
                    }
                } else {
                    int64_t acc = ldi(p1, d1);
                    sti(p0, d0, acc);
                    p0 += s0, p1 += s1;
                    for (int64_t i = 1; i < inner; i++, p0 += s0, p1 += s1) {
                        int64_t x = ldi(p1, d1);
                        acc = sub ? (int64_t)((uint64_t)acc * (uint64_t)x) : (int64_t)((uint64_t)acc + (uint64_t)x);
                        sti(p0, d0, acc);
                    }
                }
                break;
            }
            default:
                PyErr_Format(PyExc_RuntimeError, "hlograph vm: unknown opcode %d", op);
                return -1;
            }
        } while (nd > 1 && next_row(nd, shape, idx, nops, ops));
    }
    return 0;
}

static void Program_dealloc(Program *self) {
    PyMem_Free(self->code);
    PyMem_Free(self->in_type);
    PyMem_Free(self->in_nd);
    PyMem_Free(self->out_type);
    PyMem_Free(self->out_nd);
    PyMem_Free(self->in_dims);
    PyMem_Free(self->out_dims);
    PyMem_Free(self->const_ptr);
    PyMem_RawFree(self->arena_buf);
    Py_XDECREF(self->consts);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* specs: a sequence of (numpy type number, shape tuple) */
static int read_specs(PyObject *specs, int *n, int **types, int **nds, npy_intp **dims) {
    PyObject *seq = PySequence_Fast(specs, "specs must be a sequence");
    if (!seq) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    *n = (int)len;
    *types = PyMem_Calloc(len + 1, sizeof(int));
    *nds = PyMem_Calloc(len + 1, sizeof(int));
    *dims = PyMem_Calloc((len + 1) * MAXD, sizeof(npy_intp));
    if (!*types || !*nds || !*dims) { Py_DECREF(seq); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i), *shape;
        int t;
        if (!PyArg_ParseTuple(item, "iO", &t, &shape)) { Py_DECREF(seq); return -1; }
        PyObject *sh = PySequence_Fast(shape, "shape must be a sequence");
        if (!sh) { Py_DECREF(seq); return -1; }
        Py_ssize_t nd = PySequence_Fast_GET_SIZE(sh);
        if (nd > MAXD) { Py_DECREF(sh); Py_DECREF(seq); PyErr_SetString(PyExc_ValueError, "rank too large"); return -1; }
        (*types)[i] = t;
        (*nds)[i] = (int)nd;
        for (Py_ssize_t d = 0; d < nd; d++) (*dims)[i * MAXD + d] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(sh, d));
        Py_DECREF(sh);
    }
    Py_DECREF(seq);
    return PyErr_Occurred() ? -1 : 0;
}

/* the instruction stream's structure (word counts, ranks, operand counts, slots, dtypes):
   a malformed program is a ValueError here, not a wild read in run_code; offsets and
   strides are vm.assemble's */
static int check_code(const Program *self) {
    const int64_t *c = self->code, *end = self->code + self->ncode;
    int64_t nslots = (int64_t)self->n_in + self->n_const + self->n_out + 1;
    while (c < end) {
        const int64_t *at = c;
        if (end - c < 4) goto bad;
        int64_t nd = c[2], nops = c[3];
        if (nd < 0 || nd > MAXD || nops < 1 || nops > MAXOPS || end - c < 4 + nd) goto bad;
        c += 4 + nd;
        for (int64_t k = 0; k < nops; k++) {
            if (end - c < 3 + nd || c[0] < 0 || c[0] >= nslots || c[2] < DT_F64 || c[2] > DT_BOOL) goto bad;
            c += 3 + nd;
        }
        if (end - c < 1 || c[0] < 0 || end - c < 1 + c[0]) goto bad;
        c += 1 + c[0];
        continue;
    bad:
        PyErr_Format(PyExc_ValueError, "hlograph vm: malformed program (instruction at word %zd)",
                     (Py_ssize_t)(at - self->code));
        return -1;
    }
    return 0;
}

static int Program_init(Program *self, PyObject *args, PyObject *kw) {
    Py_buffer code;
    PyObject *in_specs, *consts, *out_specs;
    long long arena;
    if (!PyArg_ParseTuple(args, "y*OOOL", &code, &in_specs, &consts, &out_specs, &arena)) return -1;
    self->ncode = code.len / (Py_ssize_t)sizeof(int64_t);
    self->code = PyMem_Malloc(code.len + 8);
    if (!self->code) { PyBuffer_Release(&code); PyErr_NoMemory(); return -1; }
    memcpy(self->code, code.buf, code.len);
    PyBuffer_Release(&code);
    if (read_specs(in_specs, &self->n_in, &self->in_type, &self->in_nd, &self->in_dims) < 0) return -1;
    if (read_specs(out_specs, &self->n_out, &self->out_type, &self->out_nd, &self->out_dims) < 0) return -1;
    self->consts = PySequence_Tuple(consts);
    if (!self->consts) return -1;
    self->n_const = (int)PyTuple_GET_SIZE(self->consts);
    self->const_ptr = PyMem_Calloc(self->n_const + 1, sizeof(char *));
    if (!self->const_ptr) { PyErr_NoMemory(); return -1; }
    for (int i = 0; i < self->n_const; i++) {
        PyObject *a = PyTuple_GET_ITEM(self->consts, i);
        if (!PyArray_Check(a)) { PyErr_SetString(PyExc_TypeError, "constants must be arrays"); return -1; }
        self->const_ptr[i] = PyArray_BYTES((PyArrayObject *)a);
    }
    self->arena = arena;
    return check_code(self);
}

static PyObject *Program_call(Program *self, PyObject *args, PyObject *kw) {
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (kw && PyDict_GET_SIZE(kw)) { PyErr_SetString(PyExc_TypeError, "no keyword arguments"); return NULL; }
    if (n != self->n_in) Py_RETURN_NOTIMPLEMENTED;
    int nslots = self->n_in + self->n_const + self->n_out + 1;
    char *stack_slots[64];
    char **slots = nslots <= 64 ? stack_slots : PyMem_Malloc(nslots * sizeof(char *));
    if (!slots) return PyErr_NoMemory();
    for (int i = 0; i < self->n_in; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        PyArrayObject *arr = (PyArrayObject *)a;
        int ok = PyArray_Check(a) && PyArray_TYPE(arr) == self->in_type[i] && PyArray_NDIM(arr) == self->in_nd[i]
                 && PyArray_ISCARRAY_RO(arr) && !PyArray_ISBYTESWAPPED(arr);
        for (int d = 0; ok && d < self->in_nd[i]; d++) ok = PyArray_DIMS(arr)[d] == self->in_dims[i * MAXD + d];
        if (!ok) {
            if (slots != stack_slots) PyMem_Free(slots);
            Py_RETURN_NOTIMPLEMENTED;
        }
        slots[i] = PyArray_BYTES(arr);
    }
    for (int i = 0; i < self->n_const; i++) slots[self->n_in + i] = self->const_ptr[i];
    PyObject *out = PyTuple_New(self->n_out);
    if (!out) goto fail;
    for (int i = 0; i < self->n_out; i++) {
        PyObject *o = PyArray_SimpleNew(self->out_nd[i], self->out_dims + i * MAXD, self->out_type[i]);
        if (!o) goto fail;
        PyTuple_SET_ITEM(out, i, o);
        slots[self->n_in + self->n_const + i] = PyArray_BYTES((PyArrayObject *)o);
    }
    if (self->arena > 0 && !self->arena_buf) {
        self->arena_buf = PyMem_RawMalloc((size_t)self->arena);
        if (!self->arena_buf) { PyErr_NoMemory(); goto fail; }
    }
    slots[nslots - 1] = self->arena_buf;
    int rc = run_code(self, slots);
    if (slots != stack_slots) PyMem_Free(slots);
    if (rc < 0) { Py_DECREF(out); return NULL; }
    return out;
fail:
    if (slots != stack_slots) PyMem_Free(slots);
    Py_XDECREF(out);
    return NULL;
}

static PyTypeObject ProgramType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "hlograph.runtime._vm.Program",
    .tp_basicsize = sizeof(Program),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Program(code, input_specs, constants, output_specs, arena_bytes): a small-graph program; "
              "calling it with the input arrays returns a tuple of new output arrays, or NotImplemented "
              "when an argument is not an aligned C-contiguous array of the input's dtype and shape.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Program_init,
    .tp_dealloc = (destructor)Program_dealloc,
    .tp_call = (ternaryfunc)Program_call,
};

static struct PyModuleDef vm_module = {PyModuleDef_HEAD_INIT, "_vm", "The small-graph executor (see vm.py).", -1, NULL};

PyMODINIT_FUNC PyInit__vm(void) {
    import_array();
    import_umath();
    find_numpy_loops();
    if (PyType_Ready(&ProgramType) < 0) return NULL;
    PyObject *m = PyModule_Create(&vm_module);
    if (!m) return NULL;
    Py_INCREF(&ProgramType);
    if (PyModule_AddObject(m, "Program", (PyObject *)&ProgramType) < 0) { Py_DECREF(&ProgramType); Py_DECREF(m); return NULL; }
    return m;
}
