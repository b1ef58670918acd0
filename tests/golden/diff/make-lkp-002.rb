#!/usr/bin/env ruby
# lkp-002.expected from lkp-002.input: the robot's rows (lkp-tests
# lib/compare.rb's value and change columns, as lkp-format.md states them)
# printed by Ruby's own format, for keys whose means are decimal ties that
# C's printf rounds the other way (64.395: Ruby 64.40, C 64.39).
#   ruby make-lkp-002.rb < lkp-002.input > lkp-002.expected
def stat(v)
  avg = v.sum(0.0) / v.size
  [avg, Math.sqrt(v.map { |x| (x - avg) * (x - avg) }.sum(0.0) / v.size)]
end

def val(avg, sd)
  s = if avg.abs < 1000 then format('%10.2f', avg)
      elsif avg.abs > 1e8 then format('%10.4g', avg)
      else format('%10d', avg)
      end
  rel = avg != 0 ? 100 * sd / avg : sd
  s + (rel > 2 ? format(" \u00b1%3d%%", rel) : ' ' * 6)
end

STDIN.each_line do |l|
  next if l.start_with?('#')
  key, *v = l.split
  v = v.map(&:to_f)
  mb, sb = stat(v[0, 2])
  mn, sn = stat(v[2, 2])
  absolute = key.start_with?('perf-profile') || key.end_with?('%')
  if absolute
    p = mn - mb
  else
    b = mb != 0 ? mb : 1e-100
    p = 100.0 * (mn - b) / b
  end
  f = p.abs < 100000 ? '.1f' : '.2g'
  ch = absolute ? format("%+10#{f}  ", p) : format("%+10#{f}%% ", p)
  puts "#{val(mb, sb)}#{ch}#{val(mn, sn)}  #{key}"
end
