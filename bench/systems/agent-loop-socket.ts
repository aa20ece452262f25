import { agentLoopApp } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';

/** This package with `selfCall: 'socket'`: every turn over loopback HTTP, as before the in-process transport. */
serve(agentLoopApp({ selfCall: 'socket' }));
