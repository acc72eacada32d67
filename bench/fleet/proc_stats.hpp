#pragma once
// What /proc says of a process: its resident memory and the CPU time it has
// used, for the fleet simulation's figures. "self" names this process.

#include <string>

namespace sindri::bench {

// VmRSS in kB, or -1 when the process is gone.
long resident_kb(const std::string& pid);
// utime + stime in seconds, or -1 when the process is gone.
double cpu_seconds(const std::string& pid);
// The same for a server and its children (PostgreSQL's backends): theirs
// while they run, the server's count of the children it has reaped after.
double server_cpu_seconds(const std::string& pid);

}  // namespace sindri::bench
