import { capsuleTarget } from './capsule.js';

export const target = capsuleTarget('binary');
