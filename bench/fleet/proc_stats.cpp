#include "fleet/proc_stats.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace sindri::bench {

long resident_kb(const std::string& pid) {
  std::ifstream status("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

namespace {

struct StatFields {
  bool found = false;
  std::string parent;
  long utime = 0, stime = 0, reaped_utime = 0, reaped_stime = 0;
};

StatFields stat_fields(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // The command name may hold spaces and parentheses: fields count from the last ')'.
  const auto name_end = text.rfind(')');
  StatFields result;
  if (name_end == std::string::npos) return result;
  std::istringstream fields(text.substr(name_end + 2));
  std::string field;
  // After the name: state is field 3, the parent 4, utime 14, stime 15, cutime 16, cstime 17.
  for (int index = 3; index <= 17 && fields >> field; ++index) {
    if (index == 4) result.parent = field;
    if (index == 14) result.utime = std::stol(field);
    if (index == 15) result.stime = std::stol(field);
    if (index == 16) result.reaped_utime = std::stol(field);
    if (index == 17) result.reaped_stime = std::stol(field);
  }
  result.found = true;
  return result;
}

double ticks_to_seconds(long ticks) { return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK)); }

}  // namespace

double cpu_seconds(const std::string& pid) {
  const StatFields fields = stat_fields(pid);
  return fields.found ? ticks_to_seconds(fields.utime + fields.stime) : -1;
}

double server_cpu_seconds(const std::string& pid) {
  const StatFields server = stat_fields(pid);
  if (!server.found) return -1;
  long ticks = server.utime + server.stime + server.reaped_utime + server.reaped_stime;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const StatFields child = stat_fields(name);
    if (child.found && child.parent == pid) ticks += child.utime + child.stime;
  }
  return ticks_to_seconds(ticks);
}

}  // namespace sindri::bench
