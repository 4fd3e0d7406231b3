/* numpy's SeedSequence and PCG64, bit for bit, for the environments' streams (games.c); the stream's step is
   inline in core.h. */

#include "core.h"

#define SS_INIT_A 0x43b0d7e5u
#define SS_MULT_A 0x931e8875u
#define SS_INIT_B 0x8b51f9ddu
#define SS_MULT_B 0x58f38dedu
#define SS_MIX_MULT_L 0xca01f9ddu
#define SS_MIX_MULT_R 0x4973f715u
#define SS_XSHIFT 16
#define SS_POOL 4

static inline uint32_t
ss_hashmix(uint32_t value, uint32_t *hash_const)
{
    value ^= *hash_const;
    *hash_const *= SS_MULT_A;
    value *= *hash_const;
    value ^= value >> SS_XSHIFT;
    return value;
}

static inline uint32_t
ss_mix(uint32_t x, uint32_t y)
{
    uint32_t result = SS_MIX_MULT_L * x - SS_MIX_MULT_R * y;
    result ^= result >> SS_XSHIFT;
    return result;
}

/* numpy's PCG64(SeedSequence(entropy, spawn_key)) for an int entropy given as its 32-bit words (least
   significant first; 0 is one word 0) and a spawn key of one index, or none when `child` < 0. */
void
pcg_seeded(const uint32_t *words, int count, long child, Pcg64 *g)
{
    uint32_t entropy[SEED_WORDS + SS_POOL + 1];
    int n = 0;
    for (int k = 0; k < count; k++)
        entropy[n++] = words[k];
    if (child >= 0) {
        while (n < SS_POOL) /* a spawned sequence pads its entropy to the pool size */
            entropy[n++] = 0;
        entropy[n++] = (uint32_t)child;
    }
    uint32_t pool[SS_POOL], hash_const = SS_INIT_A;
    for (int i = 0; i < SS_POOL; i++)
        pool[i] = ss_hashmix(i < n ? entropy[i] : 0, &hash_const);
    for (int src = 0; src < SS_POOL; src++)
        for (int dst = 0; dst < SS_POOL; dst++)
            if (src != dst)
                pool[dst] = ss_mix(pool[dst], ss_hashmix(pool[src], &hash_const));
    for (int src = SS_POOL; src < n; src++)
        for (int dst = 0; dst < SS_POOL; dst++)
            pool[dst] = ss_mix(pool[dst], ss_hashmix(entropy[src], &hash_const));
    /* generate_state(4, uint64): eight words, paired little-endian */
    uint32_t state[8], generate_const = SS_INIT_B;
    for (int k = 0; k < 8; k++) {
        uint32_t value = pool[k % SS_POOL];
        value ^= generate_const;
        generate_const *= SS_MULT_B;
        value *= generate_const;
        value ^= value >> SS_XSHIFT;
        state[k] = value;
    }
    uint64_t val[4];
    for (int k = 0; k < 4; k++)
        val[k] = (uint64_t)state[2 * k] | (uint64_t)state[2 * k + 1] << 32;
    /* pcg64_set_seed: initstate = val[0]:val[1], initseq = val[2]:val[3]; state 0, inc = initseq << 1 | 1,
       step, state += initstate, step */
    g->state_high = 0;
    g->state_low = 0;
    g->inc_high = (val[2] << 1) | (val[3] >> 63);
    g->inc_low = (val[3] << 1) | 1u;
    pcg_step(g);
    uint64_t low = g->state_low + val[1];
    g->state_high = g->state_high + val[0] + (low < val[1]);
    g->state_low = low;
    pcg_step(g);
}

/* An int's 32-bit words, least significant first, as numpy coerces an int entropy; returns the count. */
int
seed_words_of(uint64_t seed, uint32_t *words)
{
    int n = 0;
    do {
        words[n++] = (uint32_t)(seed & 0xffffffffu);
        seed >>= 32;
    } while (seed);
    return n;
}

/* stream(seed_words, child) -> (state, inc) of numpy's PCG64(SeedSequence(seed, spawn_key=(child,))) (child
   -1: no spawn key), and its next raw word: for tests that hold this section to numpy. */
PyObject *
core_seeded_stream(PyObject *module, PyObject *args)
{
    PyObject *words;
    long child;
    if (!PyArg_ParseTuple(args, "Ol", &words, &child))
        return NULL;
    PyObject *seq = PySequence_Fast(words, "seeded_stream: words must be a sequence");
    if (seq == NULL)
        return NULL;
    int count = (int)PySequence_Fast_GET_SIZE(seq);
    uint32_t w[SEED_WORDS];
    if (count < 1 || count > SEED_WORDS) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "seeded_stream: 1 to 32 words");
        return NULL;
    }
    for (int k = 0; k < count; k++)
        w[k] = (uint32_t)PyLong_AsUnsignedLongMask(PySequence_Fast_GET_ITEM(seq, k));
    Py_DECREF(seq);
    if (PyErr_Occurred())
        return NULL;
    Pcg64 g;
    pcg_seeded(w, count, child, &g);
    Pcg64 next = g;
    uint64_t raw = pcg_next64(&next);
    return Py_BuildValue("(KKKKK)", (unsigned long long)g.state_high, (unsigned long long)g.state_low,
                         (unsigned long long)g.inc_high, (unsigned long long)g.inc_low, (unsigned long long)raw);
}
