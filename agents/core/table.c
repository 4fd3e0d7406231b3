/* The transposition table of agents/search.py: open addressing over slots, entries in insertion order, cleared
   (or, with Star2 or ordering, halved) when full exactly as the Python table; its probe is inline in core.h. */

#include "core.h"

void
table_free(Searcher *se)
{
    PyMem_RawFree(se->slot);
    PyMem_RawFree(se->entry_state);
    PyMem_RawFree(se->entry_hash);
    se->slot = NULL;
    se->entry_state = NULL;
    se->entry_hash = NULL;
    se->entries = se->entry_capacity = 0;
    se->slots = 0;
    se->epoch++;
}

/* Slots for the entries there are, and for as many again: the table starts small (a search of a few
   hundred nodes should not pay for a table of 100,000 entries) and doubles as it fills. */
static int
table_grow(Searcher *se, size_t slots)
{
    Slot *fresh = PyMem_RawCalloc(slots, sizeof(Slot));
    if (fresh == NULL)
        return -1;
    PyMem_RawFree(se->slot);
    se->slot = fresh;
    se->slots = slots;
    size_t mask = slots - 1;
    for (size_t e = 0; e < se->entries; e++) {
        size_t i = (size_t)se->entry_hash[e] & mask;
        while (fresh[i].entry)
            i = (i + 1) & mask;
        fresh[i].check = (uint32_t)(se->entry_hash[e] >> 32);
        fresh[i].entry = (uint32_t)(e + 1);
    }
    return 0;
}

/* Allocate the slots on first use; 0 on success, -1 out of memory. */
int
table_ready(Searcher *se)
{
    if (se->slot != NULL)
        return 0;
    return table_grow(se, 256);
}

/* Empty the table, as the Python table is cleared when full (a few bytes per entry stored since the last
   clear: the slots are zeroed). */
void
table_clear(Searcher *se)
{
    se->entries = 0;
    se->epoch++;
    memset(se->slot, 0, se->slots * sizeof(Slot));
}

/* Forget the older half of the entries (Searcher._make_room with Star2 or ordering): they are kept in insertion
   order, so the newer half moves to the front and the slots are filled again. */
static void
table_halve(Searcher *se)
{
    size_t keep = se->entries / 2, drop = se->entries - keep, width = ENTRY_WIDTH(se->size);
    memmove(se->entry_state, se->entry_state + drop * width, keep * width * sizeof(uint64_t));
    memmove(se->entry_hash, se->entry_hash + drop, keep * sizeof(uint64_t));
    se->entries = keep;
    se->epoch++;
    memset(se->slot, 0, se->slots * sizeof(Slot));
    size_t mask = se->slots - 1;
    for (size_t e = 0; e < keep; e++) {
        size_t i = (size_t)se->entry_hash[e] & mask;
        while (se->slot[i].entry)
            i = (i + 1) & mask;
        se->slot[i].check = (uint32_t)(se->entry_hash[e] >> 32);
        se->slot[i].entry = (uint32_t)(e + 1);
    }
}

/* Store a value for a key that is not in the table; as the Python table, make room first when full (clear it;
   with Star2 or ordering, forget its older half).
   Returns -1 out of memory. */
int
table_put(Searcher *se, const uint64_t *s, uint64_t tag, uint64_t h, double value)
{
    int size = se->size;
    if (se->entries >= (size_t)se->table_size) {
        if (se->star2 || se->ordering)
            table_halve(se);
        else
            table_clear(se);
    }
    if (se->entries == se->entry_capacity) {
        size_t capacity = se->entry_capacity ? 2 * se->entry_capacity : 64;
        if (capacity > (size_t)se->table_size)
            capacity = (size_t)se->table_size;
        uint64_t *states = PyMem_RawRealloc(se->entry_state, capacity * ENTRY_WIDTH(size) * sizeof(uint64_t));
        if (states == NULL)
            return -1;
        se->entry_state = states;
        uint64_t *hashes = PyMem_RawRealloc(se->entry_hash, capacity * sizeof(uint64_t));
        if (hashes == NULL)
            return -1;
        se->entry_hash = hashes;
        se->entry_capacity = capacity;
    }
    if (2 * (se->entries + 1) > se->slots && table_grow(se, 2 * se->slots) < 0)
        return -1;
    size_t e = se->entries++;
    uint64_t *stored = se->entry_state + e * ENTRY_WIDTH(size);
    memcpy(stored, s, sizeof(uint64_t) * size);
    stored[size] = tag;
    se->entry_hash[e] = h;
    entry_set(se, e, value, value);
    size_t mask = se->slots - 1, i = (size_t)h & mask;
    while (se->slot[i].entry)
        i = (i + 1) & mask;
    se->slot[i].check = (uint32_t)(h >> 32);
    se->slot[i].entry = (uint32_t)(e + 1);
    return 0;
}

/* Keep what a search learned of (state, agent, depth): its exact value (lower == upper), or a bound (the other
   one infinite), which tightens the bounds already kept in its place; bounds that would meet or cross (by
   rounding) give way to the newer. A new key is stored as table_put stores it (Searcher._keep). `found` is what
   table_find gave at table epoch `epoch` (-1: not stored); the look-up is made again only if the table was
   cleared or halved since. Returns -1 out of memory. */
int
table_keep(Searcher *se, const uint64_t *s, uint64_t tag, uint64_t h, double lower, double upper, Py_ssize_t found,
           size_t epoch)
{
    Py_ssize_t e = epoch == se->epoch ? found : table_find(se, s, tag, h);
    if (e < 0) {
        if (table_put(se, s, tag, h, lower) < 0)
            return -1;
        entry_set(se, se->entries - 1, lower, upper);
        return 0;
    }
    if (lower != upper) {
        double old_lower = entry_lower(se, (size_t)e), old_upper = entry_upper(se, (size_t)e);
        double kept_lower = lower > old_lower ? lower : old_lower;
        double kept_upper = upper < old_upper ? upper : old_upper;
        if (kept_lower < kept_upper) {
            lower = kept_lower;
            upper = kept_upper;
        }
    }
    entry_set(se, (size_t)e, lower, upper);
    return 0;
}
