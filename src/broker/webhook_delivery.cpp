// Issue 25 fills this in.
