// The blank score sheet: one button that prints.
document.getElementById("print").addEventListener("click", () => window.print());
