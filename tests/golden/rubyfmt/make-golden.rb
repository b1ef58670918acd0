#!/usr/bin/env ruby
# Ruby's own format of every value of values.txt in the conversions the
# robot's table uses (lkp-tests lib/compare.rb), for test-rubyfmt:
#   ruby make-golden.rb < values.txt > expected.txt
# values.txt: one double a line (%.17g), half of them decimal ties that C's
# printf and Ruby's format round apart (64.395: C 64.39, Ruby 64.40).
specs = %w[%.2f %.1f %+.1f %.2g %+.2g %.4g %.3e %.0f %.6f]
STDIN.each_line do |l|
  v = l.strip
  next if v.empty?
  specs.each { |s| puts "#{s} #{v} #{format(s, v.to_f)}" }
end
