// ParseFlags: how every fenec binary reads its command line (CLI11), so they
// all behave alike:
//   --help / --help-all   the help (of the subcommand asked about) on stdout; returns 0
//   a bad flag or value   ONE line on stderr, "<name>: <what>; see <name> --help";
//                         returns 2 (CLI11's messages may span lines: folded)
//   otherwise             returns -1: go on
// Header-only, and only mains include it: CLI11 costs seconds to compile.
#pragma once

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

namespace fenec::base {

inline int ParseFlags(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --version and the like
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    while (!what.empty() && what.back() == ' ') what.pop_back();
    std::cerr << app.get_name() << ": " << what << "; see " << app.get_name() << " --help\n";
    return 2;
  }
  return -1;
}

}  // namespace fenec::base
