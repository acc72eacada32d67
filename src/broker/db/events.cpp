// Issue 25 fills this in: emit_event (db/events.hpp).
