"""Markdown and reST documents: their Python code blocks and command lines."""
