"""The agent step: give an agent each checkpoint's specification in a sandbox of its own, keep
what it left, then grade that like any submission.

```
AgentSpec (spec.py: command template, allowed environment, time limit, network, mounts)
  -> chain.py: per (agent, problem), checkpoints in order under a file lock, state on disk
       -> step.py: one checkpoint: workspace from the previous snapshot (or the problem's
          starter/), the spec alone in a read-only prompt directory, the sandbox, the transcript
          -> report.py: what the agent said (final text, cost, tokens) from its JSON output
       -> snapshot <run>/submissions/<agent>/<problem>/<checkpoint>/ (what `runners batch` reads)
  -> grade.py: the snapshot graded with the usual runner; the step's failure fails the row
```
Faces: `runners solve` (cli.py), `runners batch --agents FILE` (batch.py) and the Promptfoo
provider `providers/agent_runner.py` (promptfoo.py).
"""
