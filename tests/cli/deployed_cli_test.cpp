// Filled in by issue 29's work.
