/**
 * A DeliveryBus for unit tests of daemon parts that use one or two of its methods (budget.ts, pipeline.ts
 * take the whole interface): every method throws unless the test gives its own, so a part that reaches for
 * something its test did not expect fails loudly instead of getting a silent default. A plain object, no
 * casts: the compiler checks it against the interface.
 */
import type { DeliveryBus } from '../../../src/bus/bus.js';
import type { Logger } from '../../../src/lib/log.js';

const unused = (name: string) => (): never => {
  throw new Error(`this test did not expect bus.${name}()`);
};

export function fakeDeliveryBus(own: Partial<DeliveryBus>): DeliveryBus {
  return {
    events: { emit: unused('events.emit') },
    lease: unused('lease'),
    recover: unused('recover'),
    state: unused('state'),
    watch: unused('watch'),
    unwatch: unused('unwatch'),
    rescan: unused('rescan'),
    queues: unused('queues'),
    reject: unused('reject'),
    takeRejected: unused('takeRejected'),
    commit: unused('commit'),
    settle: unused('settle'),
    update: unused('update'),
    stamp: unused('stamp'),
    record: unused('record'),
    amend: unused('amend'),
    waitingFrom: unused('waitingFrom'),
    moderate: unused('moderate'),
    approvals: unused('approvals'),
    refuse: unused('refuse'),
    examineApproval: unused('examineApproval'),
    findPersonMessage: unused('findPersonMessage'),
    archivePersonMessage: unused('archivePersonMessage'),
    requests: unused('requests'),
    takeRequest: unused('takeRequest'),
    answer: unused('answer'),
    forward: unused('forward'),
    close: unused('close'),
    now: unused('now'),
    ...own,
  };
}

/** A logger that keeps what it was told, as `level: text` lines. */
export function recordingLog(base: Logger): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = base.create({
    level: 3,
    reporters: [{ log: (o) => void lines.push(`${o.type}: ${o.args.map(String).join(' ')}`) }],
  });
  return { log, lines };
}
