// Compiled with SYNCLINE_DISABLE: the macros must expand to nothing (their arguments are not
// even evaluated). Used by tst_filetimerclient's macros() test.
#define SYNCLINE_DISABLE
#include "recorder/timermacros.h"

int disabledMacros(syncline::rec::FileTimerClient &client)
{
    int evaluated = 0;
    SYNCLINE_SCOPE(client, scope, (++evaluated, "disabled"));
    SYNCLINE_START(client, (++evaluated, "disabled"));
    SYNCLINE_INSTANT(client, (++evaluated, "disabled"));
    SYNCLINE_END(client, (++evaluated, "disabled"));
    SYNCLINE_COUNTER(client, (++evaluated, "disabled"), (++evaluated, 1.0));
    return evaluated;
}
