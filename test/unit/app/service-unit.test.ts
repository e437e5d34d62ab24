/**
 * app/machine/service-unit.ts: the PATH frozen into the unit has each folder once and only absolute ones (a
 * shell's PATH gathers repeats, and an empty or relative entry would name the service's working folder); the
 * unit names no documentation that is not baton's.
 */
import { describe, expect, it } from 'vitest';
import { servicePath, systemdUnit } from '../../../src/app/machine/service-unit.js';

describe("the service's PATH", () => {
  it('keeps the first of each folder, drops empty and relative entries, and is never empty', () => {
    expect(servicePath('/a/bin:/usr/bin::/usr/bin/:./node_modules/.bin:bin:/a/bin:/bin')).toBe('/a/bin:/usr/bin:/bin');
    expect(servicePath('/')).toBe('/');
    expect(servicePath('')).toBe('/usr/local/bin:/usr/bin:/bin');
    expect(servicePath('.:relative')).toBe('/usr/local/bin:/usr/bin:/bin');
  });

  it('is what the unit runs with; no Documentation= (it named man:tmux(1))', () => {
    const unit = systemdUnit(
      { node: '/usr/bin/node', cli: '/opt/baton/dist/cli.js', path: servicePath('/x:/x'), stateHome: undefined },
      { unit: '/h/.config/systemd/user/baton.service', envFile: '/h/.config/baton/env' },
    );
    expect(unit).toContain('Environment="PATH=/x"\n');
    expect(unit).not.toContain('Documentation=');
  });

  it('runs the daemon with --agents only when installed with it (a reboot brings the agents back)', () => {
    const launch = { node: '/usr/bin/node', cli: '/c.js', path: '/bin', stateHome: undefined };
    const paths = { unit: '/u', envFile: '/e' };
    expect(systemdUnit(launch, paths)).toMatch(/^ExecStart=.* daemon --machine --stay$/m);
    expect(systemdUnit({ ...launch, agents: true }, paths)).toMatch(/^ExecStart=.* daemon --machine --stay --agents$/m);
  });
});
