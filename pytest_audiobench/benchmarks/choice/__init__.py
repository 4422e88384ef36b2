"""The multiple-choice base every such benchmark builds on (MMAR, MMAU, AIR-Bench Foundation,
a third party's), one concern a module:

- ``base.py``: ``ChoiceBenchmark``, ``ChoiceGrade``, ``MatchedGrade``: items that are a
  question, options and one correct option, graded by matchers, counted per group;
- ``matching.py``: reading a reply as one of the options (the official token-set rule, the
  strict one, the reply's answer line split from its reasoning), pure;
- ``gating.py``: a sample's line of 0/1 outcomes and each metric read from its name, as the
  paired gate needs them;
- ``templates.py``: what the model is asked (the layouts, a reasoning variant, a template);
- ``settings.py``: the settings of the built-in prompts and matchers MMAR and MMAU share;
- ``names.py``: the names of the prompt styles and matchers, a leaf cheap to import (the
  spec modules read it at every pytest start).

This file imports nothing: the spec modules import ``names`` alone."""
