#!/usr/bin/env ruby
# lkp-003.expected from lkp-003.input, printed by the robot's own renderer:
# lkp-tests' lib/compare.rb (calc_stat_change, show_perf_change,
# show_stat) on each key's runs, rows sorted by key.  Needs a checkout of
# lkp-tests (and its Ruby dependencies: Debian's ruby-activesupport and
# ruby-git; tty-command is not called on this path, an empty file of that
# name on -I will do):
#   LKP_SRC=/path/to/lkp-tests ruby -I STUBS make-lkp-003.rb < lkp-003.input > lkp-003.expected
# The test (t308) does not need lkp-tests: it compares with the file this
# wrote.
LKP_SRC = ENV.fetch('LKP_SRC')
require "#{LKP_SRC}/lib/compare"

rows = []
STDIN.each_line do |l|
  next if l.start_with?('#')

  name, *v = l.split
  { 'ops' => v[0, 6], 'ops_per_sec' => v[6, 6] }.each do |metric, runs|
    runs = runs.map(&:to_f)
    stat = { Compare::STAT_KEY => "stress-ng.#{name}.#{metric}",
             Compare::VALUES => [runs[0, 3], runs[3, 3]], Compare::RUNS => [3, 3] }
    Compare.calc_stat_change stat
    rows << [stat[Compare::STAT_KEY], stat]
  end
end
rows.sort_by(&:first).each do |_, stat|
  Compare.show_perf_change stat
  Compare.show_stat stat
end
