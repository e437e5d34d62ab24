/**
 * The Bus contract: what every bus promises, checked the same way for each (sidequest's one contract
 * suite for every store), in one file per part of the Bus (src/bus/bus.ts says what the parts are).
 * `testBus(name, world)` registers every part; `world()` makes a fresh, empty conversation and returns its
 * config file. Every method of every part is called here (test/unit/bus/contract-covers.test.ts checks it). The files bus runs it in files-bus.test.ts; the PostgreSQL bus runs it against a real
 * server in postgres-bus.test.ts, in two schemas.
 */
import { describe } from 'vitest';
import { adminContract } from './admin.contract.js';
import { approvalsContract } from './approvals.contract.js';
import { contentContract } from './content.contract.js';
import { crashContract } from './crash.contract.js';
import { hintsContract } from './hints.contract.js';
import { leaseContract } from './lease.contract.js';
import { personContract } from './person.contract.js';
import { readerContract } from './reader.contract.js';
import { recordsContract } from './records.contract.js';
import { requestsContract } from './requests.contract.js';
import { sessionsContract } from './sessions.contract.js';
import { turnsContract } from './turns.contract.js';
import { type BusTraits, contract, type World } from './world.js';

export { type BusTraits, tempWorld, type World } from './world.js';

export function testBus(name: string, world: () => Promise<World>, traits: BusTraits = {}): void {
  describe(`the Bus contract: ${name}`, () => {
    const c = contract(world, traits);
    leaseContract(c); // Tenure, Lease
    hintsContract(c); // Hints, Clock
    turnsContract(c); // Queues, TurnState, TurnStep
    recordsContract(c); // Queues.waitingFrom, Records
    requestsContract(c); // Requests, Asking
    personContract(c); // PersonMessages
    approvalsContract(c); // Moderation
    readerContract(c); // the read side: Status, Liveness, Archive, Listings, Checkup, EventFeed
    adminContract(c); // Admin
    contentContract(c); // what every bus stores and gives back byte for byte
    sessionsContract(c); // TurnState and Records: what survives a reboot (sessions, cost, panes)
    crashContract(c); // the turn step and the stamp, killed between each two durable steps; Tenure.recover
  });
}
