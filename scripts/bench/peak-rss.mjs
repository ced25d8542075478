// Preloaded (`node --import`) into a benchmarked child process: prints its peak RSS (KiB) on exit, for the parent.
process.on('exit', () => process.stderr.write(`\npeak-rss-kib ${process.resourceUsage().maxRSS}\n`));
