"""What a run reports and how: findings, the rule table (`rules`, with `rule_examples`), `# noqa`
suppressions, and the text, JSON, GitHub and SARIF outputs (`output`, `sarif`)."""
