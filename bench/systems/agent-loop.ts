import { agentLoopApp } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';

/** This package as the README's "Use it" mounts it: the self-call in process, its default. */
serve(agentLoopApp());
