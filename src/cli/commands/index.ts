import type { CommandSpec } from '../command.js';
import { answer } from './answer.js';
import { attach } from './attach.js';
import { daemon } from './daemon.js';
import { doctor } from './doctor.js';
import { down } from './down.js';
import { post } from './post.js';
import { show } from './show.js';
import { status } from './status.js';
import { up } from './up.js';
import { approve, end, pause, reject, resume, send, start } from './conversation.js';
import { init } from './init.js';
import { log } from './log.js';
import { ui } from './ui.js';
import { hook } from './hook.js';
import { mcp } from './mcp.js';
import { ls } from './ls.js';
import { service } from './service.js';
import { notify } from './notify.js';
import { exportCommand } from './export.js';

export const COMMANDS: Record<string, CommandSpec> = {
  init,
  up,
  start,
  daemon,
  status,
  ls,
  post,
  send,
  log,
  export: exportCommand,
  show,
  pause,
  resume,
  end,
  approve,
  reject,
  answer,
  attach,
  down,
  doctor,
  ui,
  notify,
  mcp,
  hook,
  service,
};
