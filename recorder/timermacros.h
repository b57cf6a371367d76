// Recording macros that compile to nothing when SYNCLINE_DISABLE is defined.
//
//   SYNCLINE_SCOPE(client, var, "name")   declares `syncline::rec::ScopedEvent var` — the caller
//                                         names the variable; no macro declares hidden locals.
//   SYNCLINE_START(client, "name")        client.startEvent("name")
//   SYNCLINE_END(client, "name")          client.endEvent("name")
//   SYNCLINE_INSTANT(client, "name")      client.instant("name")
//   SYNCLINE_COUNTER(client, "name", v)   client.counter("name", v)
// When disabled, the arguments are not evaluated (and SYNCLINE_SCOPE declares nothing), so code
// must not rely on their side effects.
#pragma once

#include "recorder/scopedevent.h"

#if defined(SYNCLINE_DISABLE)
#define SYNCLINE_SCOPE(client, var, name) static_cast<void>(0)
#define SYNCLINE_START(client, name) static_cast<void>(0)
#define SYNCLINE_END(client, name) static_cast<void>(0)
#define SYNCLINE_INSTANT(client, name) static_cast<void>(0)
#define SYNCLINE_COUNTER(client, name, value) static_cast<void>(0)
#else
#define SYNCLINE_SCOPE(client, var, name) ::syncline::rec::ScopedEvent var((client), (name))
#define SYNCLINE_START(client, name) (client).startEvent(name)
#define SYNCLINE_END(client, name) (client).endEvent(name)
#define SYNCLINE_INSTANT(client, name) (client).instant(name)
#define SYNCLINE_COUNTER(client, name, value) (client).counter((name), (value))
#endif
