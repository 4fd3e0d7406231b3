/* The ghost models of agents/ghosts.py as chance layers: uniform, and directional from the table of
   probabilities agents/compiled.py computes with the Python model itself. */

#include "core.h"

/* The chance probabilities of ghost `agent` in live state `s` with `count` legal actions, into `p`. */
void
chance_probabilities(const Searcher *se, const uint64_t *s, int agent, int count, double *p)
{
    int i = agent - 1;
    if (!se->directional[i]) {
        double uniform = 1.0 / count;
        for (int j = 0; j < count; j++)
            p[j] = uniform;
        return;
    }
    const Board *b = se->board;
    int key = ST_GHOST(s, i), here = key / 5;
    int scared = ST_TIMER(s, i) > 0;
    int step = scared ? 1 : 2;
    int pac = ST_PAC(s);
    int px = b->x2_at[pac], py = b->y2_at[pac], x = b->x2_at[here], y = b->y2_at[here];
    const unsigned char *legal = b->ghost_action + key * 4;
    int distance[4], target = 0;
    for (int j = 0; j < count; j++) {
        int a = legal[j];
        int dx = x + DX[a] * step - px, dy = y + DY[a] * step - py;
        distance[j] = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
        if (j == 0 || (scared ? distance[j] > target : distance[j] < target))
            target = distance[j];
    }
    int mask = 0;
    for (int j = 0; j < count; j++)
        if (distance[j] == target)
            mask |= 1 << j;
    const double *row = se->probability + ((size_t)((i * 2 + scared) * 5 + count) * MASKS + mask) * 4;
    for (int j = 0; j < count; j++)
        p[j] = row[j];
}

/* ---------------------------------------------------------------- evaluations */
