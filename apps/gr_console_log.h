/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Command-line GNU Radio programs: make the blocks' warnings and errors (a decoder
// failure, dropped frames) reach the terminal on any machine.
#ifndef INCLUDED_GPUFEC_APPS_GR_CONSOLE_LOG_H
#define INCLUDED_GPUFEC_APPS_GR_CONSOLE_LOG_H

#include <gnuradio/logger.h>
#include <gnuradio/prefs.h>

namespace gpufec_apps {

/*!
 * Without a GNU Radio config file (a machine where only the libraries are present)
 * the log level is "off" and no sink exists, so a block's error line goes nowhere.
 * Adds a console sink (stderr) when the preferences name no log file and sets the
 * level: info with `verbose`, else warn (backend choices and buffer sizes stay out).
 * Call before the blocks are made: loggers take the level current at their creation.
 */
inline void gnuradio_log_to_console(bool verbose)
{
    auto& logging = gr::logging::singleton();
    if (gr::prefs::singleton()->get_string("LOG", "log_file", "").empty())
        logging.add_default_console_sink();
    logging.set_default_level(verbose ? spdlog::level::info : spdlog::level::warn);
}

} // namespace gpufec_apps

#endif
