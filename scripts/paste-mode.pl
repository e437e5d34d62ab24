#!/usr/bin/perl
# The bracketed-paste tracker `baton up` gives every agent pane it starts (tmux pipe-pane -O): it reads
# what the pane's program writes and keeps the pane option @baton_paste at "on" or "off" as the program
# turns bracketed paste on (ESC[?2004h) or off (ESC[?2004l). tmux < 3.7 cannot say it itself
# (#{bracket_paste_flag}); baton needs to know, or a multi-line message is submitted once per line.
# Arguments: the tmux socket, the pane id. It ends with the pane.
use strict;
use warnings;
my ($sock, $pane) = @ARGV;
my ($tail, $cur) = ('', '');
while (sysread(STDIN, my $buf, 65536)) {
  my $s = $tail . $buf;
  my $last;
  while ($s =~ /\e\[\?2004([hl])/g) { $last = $1 }
  if (defined $last && $last ne $cur) {
    $cur = $last;
    system('tmux', '-S', $sock, 'set-option', '-p', '-t', $pane, '@baton_paste', $last eq 'h' ? 'on' : 'off');
  }
  $tail = substr($s, -7);
}
